//! The server's environment as the jail's launcher receives it: never on
//! a command line (`/proc/<pid>/cmdline` is readable by every local user),
//! but in the environment of the processes between the VM and the server
//! (`/proc/<pid>/environ` is readable by their owner alone), each variable
//! `NAME=VALUE` carried as the value of `MCP_JAIL_ENV_<index>`.
//!
//! Carried under these names, none of the server's variables acts on the
//! programs that carry it (the shells of the stderr relay, bubblewrap, the
//! launcher's own dynamic loader: an `LD_PRELOAD` meant for the server
//! never loads into the launcher). The launcher decodes them and executes
//! the server with exactly them, plus the `PWD` bubblewrap sets.
//!
//! Invariants: the carried variables are applied in index order (a later
//! one of the same name wins); none of the carriers (nor anything else of
//! the launcher's own environment but `PWD`) reaches the server; an entry
//! that is not `NAME=VALUE` with a non-empty name is dropped.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// The prefix of the carriers' names.
pub const PREFIX: &str = "MCP_JAIL_ENV_";

/// The server's environment, decoded from the launcher's own `vars`.
pub fn decode<I: IntoIterator<Item = (OsString, OsString)>>(vars: I) -> Vec<(OsString, OsString)> {
    let mut carried: Vec<(u64, OsString)> = Vec::new();
    let mut pwd = None;
    for (name, value) in vars {
        if name == "PWD" {
            pwd = Some(value);
        } else if let Some(index) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|i| i.parse::<u64>().ok()) {
            carried.push((index, value));
        }
    }
    carried.sort_by_key(|(index, _)| *index);
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for (_, entry) in carried {
        let bytes = entry.as_bytes();
        if let Some(at) = bytes.iter().position(|&b| b == b'=').filter(|&at| at > 0) {
            let name = OsStr::from_bytes(&bytes[..at]).to_os_string();
            let value = OsString::from_vec(bytes[at + 1..].to_vec());
            set(&mut env, name, value);
        }
    }
    if let Some(pwd) = pwd {
        set(&mut env, OsString::from("PWD"), pwd);
    }
    env
}

fn set(env: &mut Vec<(OsString, OsString)>, name: OsString, value: OsString) {
    match env.iter_mut().find(|(existing, _)| *existing == name) {
        Some(entry) => entry.1 = value,
        None => env.push((name, value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(n, v)| (OsString::from(n), OsString::from(v))).collect()
    }

    #[test]
    fn carried_variables_in_index_order_plus_pwd_and_nothing_else() {
        let decoded = decode(vars(&[
            ("MCP_JAIL_ENV_10", "B=late"),
            ("PWD", "/work"),
            ("LD_PRELOAD", "/evil.so"),
            ("MCP_JAIL_ENV_2", "A=x=y"),
            ("MCP_JAIL_ENV_3", "B=early"),
            ("MCP_JAIL_ENV_4", "=nameless"),
            ("MCP_JAIL_ENV_5", "no-equals"),
            ("MCP_JAIL_ENV_x", "C=bad-index"),
        ]));
        assert_eq!(decoded, vars(&[("A", "x=y"), ("B", "late"), ("PWD", "/work")]));
    }

    #[test]
    fn a_carried_pwd_yields_to_bubblewraps() {
        assert_eq!(decode(vars(&[("MCP_JAIL_ENV_0", "PWD=/old"), ("PWD", "/new")])), vars(&[("PWD", "/new")]));
        assert_eq!(decode(vars(&[])), vars(&[]));
    }
}
