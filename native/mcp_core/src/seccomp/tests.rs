//! The filter is checked by running it: a small classic-BPF interpreter
//! (the subset the kernel's seccomp accepts and this program uses) reads the
//! encoded bytes back and evaluates them against synthetic `seccomp_data`.

use super::*;
use proptest::prelude::*;

const BPF_MAXINSNS: usize = 4096;

/// Foreign ABIs' `AUDIT_ARCH_*`, which the filter refuses.
const AUDIT_ARCH_I386: u32 = 0x4000_0003;
const AUDIT_ARCH_ARM: u32 = 0x4000_0028;

/// The bytes of `encode`, read back; `None` when the length is not a
/// whole number of instructions.
fn decode(bytes: &[u8]) -> Option<Vec<Instruction>> {
    if !bytes.len().is_multiple_of(INSTRUCTION_BYTES) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(INSTRUCTION_BYTES)
            .map(|chunk| Instruction {
                code: u16::from_ne_bytes([chunk[0], chunk[1]]),
                jt: chunk[2],
                jf: chunk[3],
                k: u32::from_ne_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]),
            })
            .collect(),
    )
}

/// A `struct seccomp_data` as the kernel lays it out (native byte order).
fn seccomp_data(arch: u32, nr: u32, args: [u64; 6]) -> [u8; 64] {
    let mut data = [0u8; 64];
    data[0..4].copy_from_slice(&nr.to_ne_bytes());
    data[4..8].copy_from_slice(&arch.to_ne_bytes());
    data[8..16].copy_from_slice(&0x7f00_dead_beefu64.to_ne_bytes());
    for (i, arg) in args.iter().enumerate() {
        data[16 + 8 * i..24 + 8 * i].copy_from_slice(&arg.to_ne_bytes());
    }
    data
}

#[derive(Debug, PartialEq)]
enum Fault {
    OutOfBounds(usize),
    BadLoad(u32),
    UnknownOpcode(u16),
}

/// Runs a program on one `seccomp_data`, as the kernel does: the
/// accumulator, absolute 32-bit loads, ALU AND, conditional forward jumps,
/// returns. Anything else is a fault, so an opcode the interpreter does not
/// know cannot pass for allowed.
fn run(program: &[Instruction], data: &[u8; 64]) -> Result<u32, Fault> {
    let mut pc = 0usize;
    let mut acc: u32 = 0;
    loop {
        let instruction = *program.get(pc).ok_or(Fault::OutOfBounds(pc))?;
        let Instruction { code, jt, jf, k } = instruction;
        match code {
            c if c == BPF_LD | BPF_W | BPF_ABS => {
                let at = k as usize;
                if !at.is_multiple_of(4) || at + 4 > data.len() {
                    return Err(Fault::BadLoad(k));
                }
                acc = u32::from_ne_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                pc += 1;
            }
            c if c == BPF_ALU | BPF_AND | BPF_K => {
                acc &= k;
                pc += 1;
            }
            c if c == BPF_JMP | BPF_JEQ | BPF_K || c == BPF_JMP | BPF_JGE | BPF_K => {
                let taken = if c & 0xf0 == BPF_JEQ { acc == k } else { acc >= k };
                pc += 1 + if taken { jt as usize } else { jf as usize };
            }
            c if c == BPF_RET | BPF_K => return Ok(k),
            other => return Err(Fault::UnknownOpcode(other)),
        }
    }
}

fn filter(arch: Arch, policy: Policy) -> Vec<Instruction> {
    // Through the bytes bwrap reads, so the encoding is under test too.
    decode(&encode(&program(arch, policy))).expect("whole instructions")
}

fn answer_under(policy: Policy, arch: Arch, audit_arch: u32, nr: u32, args: [u64; 6]) -> u32 {
    run(&filter(arch, policy), &seccomp_data(audit_arch, nr, args)).expect("the program runs to a return")
}

fn answer(arch: Arch, audit_arch: u32, nr: u32, args: [u64; 6]) -> u32 {
    answer_under(DEFAULT, arch, audit_arch, nr, args)
}

fn native_answer(arch: Arch, nr: u32, args: [u64; 6]) -> u32 {
    answer(arch, arch.audit_arch(), nr, args)
}

const ARCHES: [Arch; 2] = [Arch::X86_64, Arch::Aarch64];
const DEFAULT: Policy = Policy { unix_sockets: false };
const UNIX_SOCKETS: Policy = Policy { unix_sockets: true };
const POLICIES: [Policy; 2] = [DEFAULT, UNIX_SOCKETS];
const AF_PACKET: u64 = 17;
const AF_BLUETOOTH: u64 = 31;
const AF_VSOCK: u64 = 40;
const SOCK_DGRAM: u64 = 2;
const SOCK_RAW: u64 = 3;
const SOCK_NONBLOCK: u64 = 0o4000;
const SOCK_CLOEXEC: u64 = 0o2000000;

#[test]
fn every_path_ends_in_a_return_within_the_program() {
    // What the kernel's verifier demands: bounded size, forward jumps that
    // land inside, a return at the end.
    for arch in ARCHES {
        for policy in POLICIES {
            let program = filter(arch, policy);
            assert!(!program.is_empty() && program.len() <= BPF_MAXINSNS);
            for (at, instruction) in program.iter().enumerate() {
                if instruction.code & 0x07 == BPF_JMP {
                    assert!(at + 1 + (instruction.jt as usize) < program.len(), "{arch:?} jt at {at}");
                    assert!(at + 1 + (instruction.jf as usize) < program.len(), "{arch:?} jf at {at}");
                }
            }
            assert_eq!(program.last().map(|i| i.code), Some(BPF_RET | BPF_K));
        }
    }
}

#[test]
fn unix_socket_is_refused_with_eacces() {
    for arch in ARCHES {
        let socket = arch.syscalls().socket;
        for type_ in [SOCK_STREAM as u64, SOCK_DGRAM, SOCK_STREAM as u64 | SOCK_CLOEXEC | SOCK_NONBLOCK] {
            assert_eq!(native_answer(arch, socket, [AF_UNIX as u64, type_, 0, 0, 0, 0]), ret_errno(EACCES));
        }
        // The kernel reads `family` as an int: high bits do not hide AF_UNIX.
        assert_eq!(native_answer(arch, socket, [0xffff_0000_0000_0001, 1, 0, 0, 0, 0]), ret_errno(EACCES));
    }
}

#[test]
fn unix_sockets_policy_allows_unix_sockets_and_every_pair() {
    for arch in ARCHES {
        let nr = arch.syscalls();
        let native = |call: u32, args: [u64; 6]| answer_under(UNIX_SOCKETS, arch, arch.audit_arch(), call, args);
        assert_eq!(native(nr.socket, [AF_UNIX as u64, 1, 0, 0, 0, 0]), SECCOMP_RET_ALLOW);
        assert_eq!(native(nr.socketpair, [AF_UNIX as u64, SOCK_DGRAM, 0, 0, 0, 0]), SECCOMP_RET_ALLOW);
        // Everything else stays as in the default policy.
        assert_eq!(native(nr.socket, [AF_VSOCK, 1, 0, 0, 0, 0]), ret_errno(EAFNOSUPPORT));
        assert_eq!(native(nr.tracing[0], [0; 6]), ret_errno(EPERM));
        assert_eq!(native(nr.keys[2], [0; 6]), ret_errno(ENOSYS));
        assert_eq!(native(nr.io_uring[0], [0; 6]), ret_errno(ENOSYS));
    }
}

#[test]
fn inet_and_netlink_sockets_are_allowed() {
    for arch in ARCHES {
        let socket = arch.syscalls().socket;
        for family in ALLOWED_FAMILIES {
            assert_eq!(native_answer(arch, socket, [family as u64, 1, 0, 0, 0, 0]), SECCOMP_RET_ALLOW);
        }
    }
}

#[test]
fn other_socket_families_are_unsupported() {
    for arch in ARCHES {
        let socket = arch.syscalls().socket;
        for family in [AF_VSOCK, AF_PACKET, AF_BLUETOOTH, 0, 45, 0xffff_ffff] {
            assert_eq!(native_answer(arch, socket, [family, 1, 0, 0, 0, 0]), ret_errno(EAFNOSUPPORT));
        }
    }
}

#[test]
fn stream_socketpairs_are_allowed_and_datagram_ones_refused() {
    for arch in ARCHES {
        let socketpair = arch.syscalls().socketpair;
        let pair = |type_: u64| native_answer(arch, socketpair, [AF_UNIX as u64, type_, 0, 0x1000, 0, 0]);
        assert_eq!(pair(SOCK_STREAM as u64), SECCOMP_RET_ALLOW);
        assert_eq!(pair(SOCK_STREAM as u64 | SOCK_CLOEXEC), SECCOMP_RET_ALLOW);
        assert_eq!(pair(SOCK_SEQPACKET as u64 | SOCK_NONBLOCK), SECCOMP_RET_ALLOW);
        assert_eq!(pair(SOCK_DGRAM), ret_errno(EACCES));
        assert_eq!(pair(SOCK_DGRAM | SOCK_CLOEXEC), ret_errno(EACCES));
        assert_eq!(pair(SOCK_RAW), ret_errno(EACCES));
    }
}

#[test]
fn io_uring_and_keyrings_are_unavailable() {
    for arch in ARCHES {
        let nr = arch.syscalls();
        for call in nr.io_uring.into_iter().chain(nr.keys) {
            assert_eq!(native_answer(arch, call, [8, 0x1000, 0, 0, 0, 0]), ret_errno(ENOSYS));
        }
    }
}

#[test]
fn tracing_another_process_is_not_permitted() {
    for arch in ARCHES {
        for call in arch.syscalls().tracing {
            assert_eq!(native_answer(arch, call, [0x4206, 1, 0, 0, 0, 0]), ret_errno(EPERM));
        }
    }
}

#[test]
fn the_numbers_are_the_kernels() {
    // x86_64: arch/x86/entry/syscalls/syscall_64.tbl; aarch64: asm-generic/unistd.h.
    let x86 = Arch::X86_64.syscalls();
    assert_eq!((x86.socket, x86.socketpair, x86.keys, x86.tracing), (41, 53, [248, 249, 250], [101, 310, 311, 312, 438]));
    let arm = Arch::Aarch64.syscalls();
    assert_eq!((arm.socket, arm.socketpair, arm.keys, arm.tracing), (198, 199, [217, 218, 219], [117, 270, 271, 272, 438]));
    assert_eq!((x86.fcntl, x86.openat2, x86.aio), (72, 437, [206, 207, 209, 210, 208, 333]));
    assert_eq!((arm.fcntl, arm.openat2, arm.aio), (25, 437, [0, 1, 2, 3, 4, 292]));
    assert_eq!(x86.create_at, &[(2, 1), (257, 2)]);
    assert_eq!(arm.create_at, &[(56, 2)]);
}

#[test]
fn x32_numbers_are_refused_on_x86_64() {
    let x86 = Arch::X86_64;
    // x32's socket is 41 | the x32 bit; any x32 number is refused.
    // x32's chmod (90), fchmod (91) and openat (257) too.
    for nr in [41, 0, 1, 53, 512, 90, 91, 257] {
        assert_eq!(native_answer(x86, X32_SYSCALL_BIT | nr, [AF_UNIX as u64, 1, 0, 0, 0, 0]), ret_errno(ENOSYS));
    }
}

#[test]
fn foreign_architectures_are_refused() {
    // i386's socketcall (102) with SYS_SOCKET, 32-bit ARM's socket (281),
    // and each supported architecture's numbers under the other's arch.
    for arch in ARCHES {
        assert_eq!(answer(arch, AUDIT_ARCH_I386, 102, [1, 0x1000, 0, 0, 0, 0]), ret_errno(ENOSYS));
        assert_eq!(answer(arch, AUDIT_ARCH_ARM, 281, [AF_UNIX as u64, 1, 0, 0, 0, 0]), ret_errno(ENOSYS));
        assert_eq!(answer(arch, AUDIT_ARCH_I386, 3, [0; 6]), ret_errno(ENOSYS));
    }
    assert_eq!(answer(Arch::X86_64, AUDIT_ARCH_AARCH64, 63, [0; 6]), ret_errno(ENOSYS));
    assert_eq!(answer(Arch::Aarch64, AUDIT_ARCH_X86_64, 0, [0; 6]), ret_errno(ENOSYS));
}

#[test]
fn decode_refuses_a_partial_instruction() {
    let bytes = encode(&program(Arch::X86_64, DEFAULT));
    assert_eq!(decode(&bytes[..bytes.len() - 1]), None);
    assert_eq!(decode(&[]), Some(vec![]));
}

#[test]
fn native_filter_is_the_build_architectures_program() {
    for policy in POLICIES {
        match Arch::native() {
            Some(arch) => assert_eq!(native_filter(policy), Some(encode(&program(arch, policy)))),
            None => assert_eq!(native_filter(policy), None),
        }
    }
    assert_ne!(native_filter(DEFAULT), native_filter(UNIX_SOCKETS));
    #[cfg(target_arch = "x86_64")]
    assert_eq!(Arch::native(), Some(Arch::X86_64));
}

fn watched(arch: Arch, nr: u32) -> bool {
    let s = arch.syscalls();
    s.checked().contains(&nr) || s.refused().iter().any(|&(call, _)| call == nr)
}

const S_ISUID: u64 = 0o4000;
const S_ISGID: u64 = 0o2000;
const S_IFREG: u64 = 0o100000;
const O_WRONLY: u64 = 1;
const O_CREAT: u64 = 0o100;
const O_EXCL: u64 = 0o200;
const O_TMPFILE: u64 = 0o20200000;
const O_CLOEXEC: u64 = 0o2000000;

/// The arguments of a call whose mode is at `index`, with `mode` there and
/// plausible values elsewhere.
fn with_mode(index: u32, mode: u64) -> [u64; 6] {
    let mut args = [3, 0x7f00_1000, 0, 0, 0, 0];
    args[index as usize] = mode;
    args
}

#[test]
fn set_id_modes_are_not_permitted() {
    for arch in ARCHES {
        for policy in POLICIES {
            let nr = arch.syscalls();
            for &(call, index) in nr.mode_at {
                let native = |mode: u64| answer_under(policy, arch, arch.audit_arch(), call, with_mode(index, mode));
                for mode in [0o4755, 0o2755, 0o6755, S_ISUID, S_IFREG | 0o4755, 0xffff_0000_0000_0000 | 0o4755] {
                    assert_eq!(native(mode), ret_errno(EPERM), "{arch:?} call {call} mode {mode:o}");
                }
                for mode in [0o755, 0o644, 0o1777, 0o777, S_IFREG | 0o755, 0xffff_0000_0000_0000 | 0o755] {
                    assert_eq!(native(mode), SECCOMP_RET_ALLOW, "{arch:?} call {call} mode {mode:o}");
                }
            }
        }
    }
}

#[test]
fn set_id_modes_are_not_permitted_when_open_creates() {
    for arch in ARCHES {
        let nr = arch.syscalls();
        for &(call, flags_at) in nr.create_at {
            let open = |flags: u64, mode: u64| {
                let mut args = [3, 0x7f00_1000, 0x7f00_1000, 0, 0, 0];
                args[flags_at as usize] = flags;
                args[flags_at as usize + 1] = mode;
                native_answer(arch, call, args)
            };
            for flags in [O_CREAT, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, O_TMPFILE | O_WRONLY] {
                assert_eq!(open(flags, 0o4755), ret_errno(EPERM), "{arch:?} call {call} flags {flags:o}");
                assert_eq!(open(flags, S_ISGID | 0o644), ret_errno(EPERM));
                assert_eq!(open(flags, 0o644), SECCOMP_RET_ALLOW);
            }
            // Without a creating flag the kernel ignores the mode: so does the filter.
            assert_eq!(open(O_WRONLY, 0o4755), SECCOMP_RET_ALLOW);
            assert_eq!(open(0, 0o6777), SECCOMP_RET_ALLOW);
        }
    }
}

#[test]
fn leases_are_not_permitted_and_other_fcntls_are() {
    for arch in ARCHES {
        let fcntl = arch.syscalls().fcntl;
        assert_eq!(native_answer(arch, fcntl, [3, F_SETLEASE as u64, 0, 0, 0, 0]), ret_errno(EPERM));
        assert_eq!(native_answer(arch, fcntl, [3, 0xffff_0000_0000_0000 | F_SETLEASE as u64, 0, 0, 0, 0]), ret_errno(EPERM));
        // F_GETLEASE, F_SETLK, F_SETFD, F_GETFL.
        for cmd in [1025, 6, 2, 3] {
            assert_eq!(native_answer(arch, fcntl, [3, cmd, 0, 0, 0, 0]), SECCOMP_RET_ALLOW);
        }
    }
}

#[test]
fn openat2_and_linux_aio_are_unavailable() {
    for arch in ARCHES {
        let nr = arch.syscalls();
        for call in nr.aio.into_iter().chain([nr.openat2]) {
            assert_eq!(native_answer(arch, call, [128, 0x7f00_1000, 0, 0, 0, 0]), ret_errno(ENOSYS));
        }
    }
}

proptest! {
    #[test]
    fn every_other_native_syscall_is_allowed(nr in 0u32..X32_SYSCALL_BIT, args in any::<[u64; 6]>()) {
        for arch in ARCHES {
            for policy in POLICIES {
                if !watched(arch, nr) {
                    prop_assert_eq!(answer_under(policy, arch, arch.audit_arch(), nr, args), SECCOMP_RET_ALLOW);
                }
            }
        }
    }

    #[test]
    fn every_call_under_another_arch_is_refused(audit_arch in any::<u32>(), nr in any::<u32>(), args in any::<[u64; 6]>()) {
        for arch in ARCHES {
            for policy in POLICIES {
                if audit_arch != arch.audit_arch() {
                    prop_assert_eq!(answer_under(policy, arch, audit_arch, nr, args), ret_errno(ENOSYS));
                }
            }
        }
    }

    #[test]
    fn socket_answers_depend_only_on_the_family(family in prop_oneof![any::<u64>(), 0u64..64], rest in any::<[u64; 5]>()) {
        for arch in ARCHES {
            for policy in POLICIES {
                let args = [family, rest[0], rest[1], rest[2], rest[3], rest[4]];
                let low = family as u32;
                let expected = if ALLOWED_FAMILIES.contains(&low) || (low == AF_UNIX && policy.unix_sockets) {
                    SECCOMP_RET_ALLOW
                } else if low == AF_UNIX {
                    ret_errno(EACCES)
                } else {
                    ret_errno(EAFNOSUPPORT)
                };
                prop_assert_eq!(answer_under(policy, arch, arch.audit_arch(), arch.syscalls().socket, args), expected);
            }
        }
    }
}
