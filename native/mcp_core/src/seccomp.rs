//! The seccomp filter a jailed MCP server runs under (`mcp_jail`, `docs/jail.md`).
//!
//! bubblewrap takes a compiled classic-BPF program (`--seccomp FD`: an
//! array of `struct sock_filter`, 8 bytes each, native-endian) and installs
//! it just before it executes the server. This module builds that program;
//! it does no I/O and installs nothing.
//!
//! What the program answers, checked in this order:
//!
//! 1. A system call made through another ABI than the native one
//!    (`seccomp_data.arch` is not the build's `AUDIT_ARCH_*`: i386's
//!    `socketcall`, a 32-bit ARM `socket`) fails with `ENOSYS`, and so does
//!    any number with the x32 bit (`0x40000000`) on x86_64: those tables
//!    would otherwise reach the calls below under numbers this filter never
//!    checks.
//! 2. `socket(family, ...)` is an allow-list of address families:
//!    `AF_INET`, `AF_INET6` (the jail's network namespace decides what they
//!    reach) and `AF_NETLINK` (the namespace's own routes and addresses,
//!    which name resolution reads). `AF_UNIX` fails with `EACCES`, unless
//!    the policy allows Unix sockets: a jailed process cannot create one, so
//!    it cannot `connect()` to any socket on the host's filesystem (a Docker
//!    daemon, an ssh-agent, a D-Bus bus). Every other family (`AF_VSOCK`,
//!    which no namespace separates from the host, `AF_PACKET`, Bluetooth,
//!    ...) fails with `EAFNOSUPPORT`, what a kernel without that family
//!    answers.
//! 3. `socketpair(_, type, ...)` is allowed for `SOCK_STREAM` and
//!    `SOCK_SEQPACKET` (node and Python start helpers over stream pairs) and
//!    fails with `EACCES` for every other type: a datagram pair
//!    (`SOCK_DGRAM`, or `SOCK_RAW`, which `AF_UNIX` turns into a datagram
//!    socket) can still `connect()` or `sendto()` a host's datagram socket
//!    by path, so it would reopen what rule 2 closes. With Unix sockets
//!    allowed every pair is.
//! 4. `io_uring_setup`, `io_uring_enter` and `io_uring_register` fail with
//!    `ENOSYS`: an io_uring can create a socket (`IORING_OP_SOCKET`)
//!    without the `socket` system call. `ENOSYS` is what a kernel without
//!    io_uring answers, so runtimes that probe for it (libuv in node,
//!    liburing) take their fallback instead of reporting an error.
//! 5. `add_key`, `request_key` and `keyctl` fail with `ENOSYS` (a kernel
//!    without keyrings): the caller's session keyring is not namespaced and
//!    would otherwise be readable and writable from inside.
//! 6. `ptrace`, `process_vm_readv`, `process_vm_writev`, `kcmp` and
//!    `pidfd_getfd` fail with `EPERM`: inside the jail every process has
//!    the same uid, the jail's own init (bubblewrap) included, and tracing
//!    it could detach it from the process tree the client retires.
//! 7. A mode with the set-user-ID or set-group-ID bit (`06000`) fails
//!    with `EPERM` in `chmod`, `fchmod`, `fchmodat`, `fchmodat2`, `creat`,
//!    `mkdir`, `mkdirat`, `mknod`, `mknodat`, and in `open` and `openat`
//!    when they create (`O_CREAT` or `O_TMPFILE`): the server runs as the
//!    VM's user, so a set-user-ID file it leaves in a write grant would run
//!    with the VM user's rights for any local user who reaches it (the
//!    jail's mounts are `nosuid`, the host's are not). `openat2` fails with
//!    `ENOSYS`: its mode is inside a structure a filter cannot read, and
//!    libc falls back to `openat` on a kernel without it.
//! 8. `fcntl(fd, F_SETLEASE, ...)` fails with `EPERM`: a lease on a file
//!    the VM's user owns makes every open of it for writing on the host
//!    (the VM's own included) wait for the lease-break time (45 s).
//! 9. Linux AIO (`io_setup`, `io_destroy`, `io_submit`, `io_cancel`,
//!    `io_getevents`, `io_pgetevents`) fails with `ENOSYS`: its events are
//!    counted against one machine-wide limit (`fs.aio-max-nr`), which a
//!    server could take whole, and no namespace bounds it.
//! 10. Everything else is allowed.
//!
//! Arguments are compared on their low 32 bits only: the kernel reads
//! `socket`'s `family` and `type`, `open`'s flags, `fcntl`'s command and
//! every mode as 32-bit (or narrower) integers, so the high half of the
//! register cannot smuggle a refused value past the filter.

/// The architectures whose system call numbers this module knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
}

impl Arch {
    /// The architecture this crate was built for, when the filter supports
    /// it (little-endian x86_64 and aarch64).
    pub fn native() -> Option<Arch> {
        if cfg!(all(target_arch = "x86_64", target_endian = "little")) {
            Some(Arch::X86_64)
        } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
            Some(Arch::Aarch64)
        } else {
            None
        }
    }

    /// `AUDIT_ARCH_*`: what the kernel puts in `seccomp_data.arch`.
    pub fn audit_arch(self) -> u32 {
        match self {
            Arch::X86_64 => AUDIT_ARCH_X86_64,
            Arch::Aarch64 => AUDIT_ARCH_AARCH64,
        }
    }

    /// The numbers of the system calls the filter looks at.
    pub fn syscalls(self) -> Syscalls {
        match self {
            Arch::X86_64 => Syscalls {
                socket: 41,
                socketpair: 53,
                io_uring: [425, 426, 427],
                keys: [248, 249, 250],
                tracing: [101, 310, 311, 312, 438],
                // chmod, fchmod, creat, mkdir, mknod; fchmodat, fchmodat2, mkdirat, mknodat.
                mode_at: &[(90, 1), (91, 1), (85, 1), (83, 1), (133, 1), (268, 2), (452, 2), (258, 2), (259, 2)],
                // open (flags, mode), openat (dirfd, path, flags, mode).
                create_at: &[(2, 1), (257, 2)],
                openat2: 437,
                fcntl: 72,
                aio: [206, 207, 209, 210, 208, 333],
            },
            // The generic table (asm-generic/unistd.h), which has no chmod,
            // creat, mkdir, mknod or open.
            Arch::Aarch64 => Syscalls {
                socket: 198,
                socketpair: 199,
                io_uring: [425, 426, 427],
                keys: [217, 218, 219],
                tracing: [117, 270, 271, 272, 438],
                // fchmod; fchmodat, fchmodat2, mkdirat, mknodat.
                mode_at: &[(52, 1), (53, 2), (452, 2), (34, 2), (33, 2)],
                create_at: &[(56, 2)],
                openat2: 437,
                fcntl: 25,
                aio: [0, 1, 2, 3, 4, 292],
            },
        }
    }

    /// x86_64 also runs x32 binaries through its own entry point, with the
    /// same `arch` but numbers carrying this bit.
    fn has_x32(self) -> bool {
        self == Arch::X86_64
    }
}

/// System call numbers of one architecture.
#[derive(Clone, Copy, Debug)]
pub struct Syscalls {
    pub socket: u32,
    pub socketpair: u32,
    /// `io_uring_setup`, `io_uring_enter`, `io_uring_register`.
    pub io_uring: [u32; 3],
    /// `add_key`, `request_key`, `keyctl`.
    pub keys: [u32; 3],
    /// `ptrace`, `process_vm_readv`, `process_vm_writev`, `kcmp`, `pidfd_getfd`.
    pub tracing: [u32; 5],
    /// The calls that take a file mode, each with the index of its mode
    /// argument (`chmod`, `fchmod`, `fchmodat`, `fchmodat2`, `creat`,
    /// `mkdir`, `mkdirat`, `mknod`, `mknodat`: those the table has).
    pub mode_at: &'static [(u32, u32)],
    /// The calls that take a mode only when their flags create a file
    /// (`open`, `openat`), each with the index of its flags argument; the
    /// mode is the next one.
    pub create_at: &'static [(u32, u32)],
    pub openat2: u32,
    pub fcntl: u32,
    /// `io_setup`, `io_destroy`, `io_submit`, `io_cancel`, `io_getevents`,
    /// `io_pgetevents`.
    pub aio: [u32; 6],
}

impl Syscalls {
    /// Every call the filter refuses whatever its arguments, with its errno.
    pub fn refused(&self) -> Vec<(u32, u32)> {
        let io_uring = self.io_uring.iter().map(|&nr| (nr, ENOSYS));
        let keys = self.keys.iter().map(|&nr| (nr, ENOSYS));
        let tracing = self.tracing.iter().map(|&nr| (nr, EPERM));
        let aio = self.aio.iter().map(|&nr| (nr, ENOSYS));
        io_uring.chain(keys).chain(tracing).chain(aio).chain([(self.openat2, ENOSYS)]).collect()
    }

    /// Every call the filter answers by its arguments.
    pub fn checked(&self) -> Vec<u32> {
        let modes = self.mode_at.iter().chain(self.create_at).map(|&(nr, _)| nr);
        [self.socket, self.socketpair, self.fcntl].into_iter().chain(modes).collect()
    }
}

/// What a jail's spec opens beyond the default filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `socket(AF_UNIX, ...)` and every `socketpair` are allowed.
    pub unix_sockets: bool,
}

pub const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
pub const AUDIT_ARCH_AARCH64: u32 = 0xc000_00b7;
pub const X32_SYSCALL_BIT: u32 = 0x4000_0000;

pub const AF_UNIX: u32 = 1;
pub const AF_INET: u32 = 2;
pub const AF_INET6: u32 = 10;
pub const AF_NETLINK: u32 = 16;
/// The families every jail may create sockets of.
pub const ALLOWED_FAMILIES: [u32; 3] = [AF_INET, AF_INET6, AF_NETLINK];
pub const SOCK_STREAM: u32 = 1;
pub const SOCK_SEQPACKET: u32 = 5;
/// `type`'s low bits name the socket type; the high ones are flags
/// (`SOCK_NONBLOCK`, `SOCK_CLOEXEC`).
pub const SOCK_TYPE_MASK: u32 = 0xf;
/// `S_ISUID | S_ISGID`.
pub const SET_ID_BITS: u32 = 0o6000;
/// `O_CREAT | __O_TMPFILE` (the same on both architectures): the flags
/// under which `open` and `openat` read their mode.
pub const CREATING_FLAGS: u32 = 0o100 | 0o20000000;
pub const F_SETLEASE: u32 = 1024;

pub const EPERM: u32 = 1;
pub const EACCES: u32 = 13;
pub const ENOSYS: u32 = 38;
pub const EAFNOSUPPORT: u32 = 97;

pub const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
pub const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;

// Classic BPF opcodes (linux/bpf_common.h).
pub const BPF_LD: u16 = 0x00;
pub const BPF_ALU: u16 = 0x04;
pub const BPF_JMP: u16 = 0x05;
pub const BPF_RET: u16 = 0x06;
pub const BPF_W: u16 = 0x00;
pub const BPF_ABS: u16 = 0x20;
pub const BPF_AND: u16 = 0x50;
pub const BPF_JEQ: u16 = 0x10;
pub const BPF_JGE: u16 = 0x30;
pub const BPF_K: u16 = 0x00;

/// `struct seccomp_data` offsets: `int nr`, `__u32 arch`, `__u64
/// instruction_pointer`, `__u64 args[6]`.
pub const OFFSET_NR: u32 = 0;
pub const OFFSET_ARCH: u32 = 4;
const OFFSET_ARGS: u32 = 16;

/// The offset of the low 32 bits of argument `index` (both supported
/// architectures are little-endian).
pub fn arg_low_offset(index: u32) -> u32 {
    OFFSET_ARGS + 8 * index
}

/// The answer that makes a system call fail with `errno`.
pub fn ret_errno(errno: u32) -> u32 {
    SECCOMP_RET_ERRNO | errno
}

/// One `struct sock_filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

/// The size of one encoded `struct sock_filter`.
pub const INSTRUCTION_BYTES: usize = 8;

/// Where a conditional jump goes: the next instruction or a named return.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Next,
    Allow,
    Errno(u32),
    CheckSocket,
    CheckSocketpair,
    CheckFcntl,
    /// The flags at this argument index create a file: check the mode at
    /// the next one.
    CheckCreate(u32),
    /// The mode at this argument index must carry no set-ID bit.
    CheckMode(u32),
}

/// A step before label resolution.
enum Step {
    Load(u32),
    And(u32),
    JumpIf { op: u16, k: u32, then: Target, otherwise: Target },
    Label(Target),
    Return(u32),
}

/// The program for `arch` under `policy` (see the module doc for what it
/// answers).
pub fn program(arch: Arch, policy: Policy) -> Vec<Instruction> {
    use Target::*;
    let nr = arch.syscalls();
    let mut steps = vec![
        Step::Load(OFFSET_ARCH),
        Step::JumpIf { op: BPF_JEQ, k: arch.audit_arch(), then: Next, otherwise: Errno(ENOSYS) },
        Step::Load(OFFSET_NR),
    ];
    if arch.has_x32() {
        steps.push(Step::JumpIf { op: BPF_JGE, k: X32_SYSCALL_BIT, then: Errno(ENOSYS), otherwise: Next });
    }
    steps.push(Step::JumpIf { op: BPF_JEQ, k: nr.socket, then: CheckSocket, otherwise: Next });
    let socketpair = if policy.unix_sockets { Allow } else { CheckSocketpair };
    steps.push(Step::JumpIf { op: BPF_JEQ, k: nr.socketpair, then: socketpair, otherwise: Next });
    steps.extend(nr.refused().into_iter().map(|(call, errno)| Step::JumpIf {
        op: BPF_JEQ,
        k: call,
        then: Errno(errno),
        otherwise: Next,
    }));
    steps.push(Step::JumpIf { op: BPF_JEQ, k: nr.fcntl, then: CheckFcntl, otherwise: Next });
    steps.extend(nr.create_at.iter().map(|&(call, flags)| Step::JumpIf {
        op: BPF_JEQ,
        k: call,
        then: CheckCreate(flags),
        otherwise: Next,
    }));
    steps.extend(nr.mode_at.iter().map(|&(call, mode)| Step::JumpIf {
        op: BPF_JEQ,
        k: call,
        then: CheckMode(mode),
        otherwise: Next,
    }));
    steps.push(Step::Return(SECCOMP_RET_ALLOW));
    steps.extend([
        Step::Label(CheckFcntl),
        Step::Load(arg_low_offset(1)),
        Step::JumpIf { op: BPF_JEQ, k: F_SETLEASE, then: Errno(EPERM), otherwise: Allow },
    ]);
    // Flag checks first: they jump forward to the mode checks.
    let mut creates: Vec<u32> = nr.create_at.iter().map(|&(_, flags)| flags).collect();
    creates.sort_unstable();
    creates.dedup();
    for &flags in &creates {
        steps.extend([
            Step::Label(CheckCreate(flags)),
            Step::Load(arg_low_offset(flags)),
            Step::And(CREATING_FLAGS),
            Step::JumpIf { op: BPF_JEQ, k: 0, then: Allow, otherwise: CheckMode(flags + 1) },
        ]);
    }
    let mut modes: Vec<u32> = nr.mode_at.iter().map(|&(_, mode)| mode).chain(creates.iter().map(|flags| flags + 1)).collect();
    modes.sort_unstable();
    modes.dedup();
    for mode in modes {
        steps.extend([
            Step::Label(CheckMode(mode)),
            Step::Load(arg_low_offset(mode)),
            Step::And(SET_ID_BITS),
            Step::JumpIf { op: BPF_JEQ, k: 0, then: Allow, otherwise: Errno(EPERM) },
        ]);
    }
    steps.push(Step::Label(CheckSocket));
    steps.push(Step::Load(arg_low_offset(0)));
    steps.extend(ALLOWED_FAMILIES.iter().map(|&family| Step::JumpIf {
        op: BPF_JEQ,
        k: family,
        then: Allow,
        otherwise: Next,
    }));
    let unix = if policy.unix_sockets { Allow } else { Errno(EACCES) };
    steps.push(Step::JumpIf { op: BPF_JEQ, k: AF_UNIX, then: unix, otherwise: Errno(EAFNOSUPPORT) });
    if !policy.unix_sockets {
        steps.extend([
            Step::Label(CheckSocketpair),
            Step::Load(arg_low_offset(1)),
            Step::And(SOCK_TYPE_MASK),
            Step::JumpIf { op: BPF_JEQ, k: SOCK_STREAM, then: Allow, otherwise: Next },
            Step::JumpIf { op: BPF_JEQ, k: SOCK_SEQPACKET, then: Allow, otherwise: Errno(EACCES) },
        ]);
    }
    steps.extend([
        Step::Label(Allow),
        Step::Return(SECCOMP_RET_ALLOW),
        Step::Label(Errno(EACCES)),
        Step::Return(ret_errno(EACCES)),
        Step::Label(Errno(ENOSYS)),
        Step::Return(ret_errno(ENOSYS)),
        Step::Label(Errno(EPERM)),
        Step::Return(ret_errno(EPERM)),
        Step::Label(Errno(EAFNOSUPPORT)),
        Step::Return(ret_errno(EAFNOSUPPORT)),
    ]);
    assemble(&steps)
}

/// Resolves labels into the relative forward offsets BPF jumps take (BPF
/// cannot jump backwards). A jump to a label behind it or missing gets
/// offset 255, which lands outside this short program: the tests check the
/// result like the kernel's verifier does, so such a mistake fails them.
fn assemble(steps: &[Step]) -> Vec<Instruction> {
    let mut labels = Vec::new();
    let mut position = 0usize;
    for step in steps {
        match step {
            Step::Label(target) => labels.push((*target, position)),
            _ => position += 1,
        }
    }
    let offset = |from: usize, target: Target| -> u8 {
        match target {
            Target::Next => 0,
            _ => labels
                .iter()
                .find(|(label, _)| *label == target)
                .and_then(|(_, at)| at.checked_sub(from + 1))
                .and_then(|distance| u8::try_from(distance).ok())
                .unwrap_or(u8::MAX),
        }
    };
    let mut program = Vec::with_capacity(position);
    for step in steps {
        let at = program.len();
        let instruction = match *step {
            Step::Label(_) => continue,
            Step::Load(k) => Instruction { code: BPF_LD | BPF_W | BPF_ABS, jt: 0, jf: 0, k },
            Step::And(k) => Instruction { code: BPF_ALU | BPF_AND | BPF_K, jt: 0, jf: 0, k },
            Step::JumpIf { op, k, then, otherwise } => {
                Instruction { code: BPF_JMP | op | BPF_K, jt: offset(at, then), jf: offset(at, otherwise), k }
            }
            Step::Return(k) => Instruction { code: BPF_RET | BPF_K, jt: 0, jf: 0, k },
        };
        program.push(instruction);
    }
    program
}

/// `struct sock_filter` array bytes, in the byte order of the build
/// (bwrap reads them into `struct sock_fprog` as they are).
pub fn encode(program: &[Instruction]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(program.len() * INSTRUCTION_BYTES);
    for instruction in program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    bytes
}

/// The encoded filter for the architecture of this build under `policy`,
/// or `None` where the filter does not know the system call numbers.
pub fn native_filter(policy: Policy) -> Option<Vec<u8>> {
    Arch::native().map(|arch| encode(&program(arch, policy)))
}

#[cfg(test)]
mod tests;
