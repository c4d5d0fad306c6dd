//! Files and the operating system (320-339): the platform's name, environment variables, the
//! working directory, directory entries, and files opened by handle (read and written in
//! bytes, positioned, synced). Everything but the platform's name needs a user who may change
//! code (a gem serves users who are not all trusted); a refused or failed call fails the
//! primitive and leaves its reason for `OSPlatform lastError`, which the methods' code
//! signals.

use super::{Args, Prim, PrimResult, size_arg, table};
use crate::heap::Body;
use crate::value::Value;
use crate::vm::Vm;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::time::UNIX_EPOCH;

/// The files a VM has open, by handle, and why the last call failed.
#[derive(Default)]
pub(crate) struct Files {
    open: HashMap<i64, File>,
    next: i64,
    pub(super) last_error: String,
}

/// Why a user without the privilege is refused.
pub(super) const REFUSED: &str = "files and the environment are reached only by a user who may change code";

pub(super) fn call(vm: &mut Vm, index: u16, a: Args) -> PrimResult {
    match index {
        table::OS_LAST_ERROR => {
            let text = vm.files.last_error.clone();
            Ok(vm.new_string(&text))
        }
        table::OS_PLATFORM_NAME => Ok(vm.new_string(std::env::consts::OS)),
        _ if !vm.may_change_code => {
            vm.files.last_error = REFUSED.into();
            Err(Prim::Fail)
        }
        _ => match privileged(vm, index, a) {
            Ok(v) => Ok(v),
            Err(Failure::Os(message)) => {
                vm.files.last_error = message;
                Err(Prim::Fail)
            }
            Err(Failure::Arguments) => {
                vm.files.last_error = "bad arguments".into();
                Err(Prim::Fail)
            }
        },
    }
}

/// Why a privileged primitive failed.
enum Failure {
    /// The arguments are not what the primitive takes.
    Arguments,
    /// The operating system refused, for this reason.
    Os(String),
}

impl From<Prim> for Failure {
    fn from(_: Prim) -> Self {
        Failure::Arguments
    }
}

/// An operating system error about `path`, as a user reads it.
fn os_error(path: &str, e: &std::io::Error) -> Failure {
    let mut reason = e.to_string();
    if let Some(at) = reason.find(" (os error") {
        reason.truncate(at);
    }
    Failure::Os(format!("{path}: {reason}"))
}

fn privileged(vm: &mut Vm, index: u16, a: Args) -> Result<Value, Failure> {
    let x = a.arg(vm, 0);
    let path = || vm.string_of(x).ok_or(Failure::Arguments);
    match index {
        table::OS_ENVIRONMENT_AT => {
            let name = path()?;
            match std::env::var_os(&name) {
                Some(value) => Ok(vm.new_string(&value.to_string_lossy())),
                None => Ok(Value::NIL),
            }
        }
        table::FILE_WORKING_DIRECTORY => {
            let dir = std::env::current_dir().map_err(|e| os_error(".", &e))?;
            Ok(vm.new_string(&dir.to_string_lossy()))
        }
        table::FILE_ENTRY => {
            let p = path()?;
            let meta = match std::fs::metadata(&p) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Value::NIL),
                Err(e) => return Err(os_error(&p, &e)),
            };
            let modified = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok());
            let seconds = modified.map_or(0, |d| d.as_secs() as i64);
            let size = vm.new_integer_i128(i128::from(meta.len()));
            let seconds = vm.new_integer_i128(i128::from(seconds));
            Ok(vm.new_array(vec![Value::boolean(meta.is_dir()), size, seconds]))
        }
        table::FILE_CHILDREN => {
            let p = path()?;
            let entries = std::fs::read_dir(&p).map_err(|e| os_error(&p, &e))?;
            let mut names = Vec::new();
            for entry in entries {
                names.push(entry.map_err(|e| os_error(&p, &e))?.file_name().to_string_lossy().into_owned());
            }
            names.sort();
            let items = names.iter().map(|n| vm.new_string(n)).collect();
            Ok(vm.new_array(items))
        }
        table::FILE_CREATE_DIRECTORY => {
            let p = path()?;
            let made = if a.arg(vm, 1) == Value::TRUE { std::fs::create_dir_all(&p) } else { std::fs::create_dir(&p) };
            made.map_err(|e| os_error(&p, &e))?;
            Ok(x)
        }
        table::FILE_DELETE => {
            let p = path()?;
            let is_dir = std::fs::symlink_metadata(&p).map_err(|e| os_error(&p, &e))?.is_dir();
            let removed = if is_dir { std::fs::remove_dir(&p) } else { std::fs::remove_file(&p) };
            removed.map_err(|e| os_error(&p, &e))?;
            Ok(x)
        }
        table::FILE_RENAME => {
            let from = path()?;
            let to = vm.string_of(a.arg(vm, 1)).ok_or(Failure::Arguments)?;
            std::fs::rename(&from, &to).map_err(|e| os_error(&from, &e))?;
            Ok(x)
        }
        table::FILE_OPEN => {
            let p = path()?;
            let mut options = OpenOptions::new();
            match a.arg(vm, 1).as_int() {
                Some(0) => options.read(true),
                Some(1) => options.write(true).create(true).truncate(true),
                Some(2) => options.append(true).create(true),
                Some(3) => options.read(true).write(true).create(true).truncate(false),
                _ => return Err(Failure::Arguments),
            };
            let file = options.open(&p).map_err(|e| os_error(&p, &e))?;
            if file.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(Failure::Os(format!("{p}: is a directory")));
            }
            vm.files.next += 1;
            let handle = vm.files.next;
            vm.files.open.insert(handle, file);
            Ok(Value::small(handle))
        }
        table::FILE_CLOSE => {
            let handle = x.as_int().ok_or(Failure::Arguments)?;
            vm.files.open.remove(&handle).ok_or_else(closed)?;
            Ok(x)
        }
        table::FILE_READ | table::FILE_WRITE => transfer(vm, index, a),
        table::FILE_POSITION | table::FILE_SIZE => {
            let file = open_file(vm, x)?;
            let n =
                if index == table::FILE_POSITION { file.stream_position() } else { file.metadata().map(|m| m.len()) };
            Ok(vm.new_integer_i128(i128::from(n.map_err(|e| os_error("file", &e))?)))
        }
        table::FILE_SET_POSITION => {
            let to = size_arg(a.arg(vm, 1))?;
            open_file(vm, x)?.seek(SeekFrom::Start(to as u64)).map_err(|e| os_error("file", &e))?;
            Ok(x)
        }
        table::FILE_SYNC => {
            open_file(vm, x)?.sync_all().map_err(|e| os_error("file", &e))?;
            Ok(x)
        }
        _ => Err(Failure::Arguments),
    }
}

fn closed() -> Failure {
    Failure::Os("the file is closed".into())
}

/// The open file whose handle is `handle`.
fn open_file(vm: &mut Vm, handle: Value) -> Result<&mut File, Failure> {
    let handle = handle.as_int().ok_or(Failure::Arguments)?;
    vm.files.open.get_mut(&handle).ok_or_else(closed)
}

/// Reads into, or writes from, `count` bytes of a byte object from index `start`: answers
/// how many (a read answers 0 at the end of the file).
fn transfer(vm: &mut Vm, index: u16, a: Args) -> Result<Value, Failure> {
    let handle = a.arg(vm, 0).as_int().ok_or(Failure::Arguments)?;
    let buffer = a.arg(vm, 1);
    let start = size_arg(a.arg(vm, 2))?;
    let count = size_arg(a.arg(vm, 3))?;
    let Vm { files, heap, .. } = vm;
    let file = files.open.get_mut(&handle).ok_or_else(closed)?;
    let Some(obj) = heap.get_mut(buffer) else { return Err(Failure::Arguments) };
    let Body::Bytes(bytes) = &mut obj.body else { return Err(Failure::Arguments) };
    let range = start.checked_sub(1).and_then(|s| Some(s..s.checked_add(count)?)).ok_or(Failure::Arguments)?;
    let part = bytes.get_mut(range).ok_or(Failure::Arguments)?;
    let n = if index == table::FILE_READ {
        let n = file.read(part).map_err(|e| os_error("file", &e))?;
        heap.note_store(buffer);
        n
    } else {
        file.write_all(part).map_err(|e| os_error("file", &e))?;
        count
    };
    Ok(Value::small(n as i64))
}
