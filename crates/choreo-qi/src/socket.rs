//! The sending half of a qi socket, shared by every thread that writes to it.
//!
//! Frames are appended to one buffer; the thread that finds no write in progress becomes the
//! writer and flushes everything queued meanwhile in one system call. A lone caller writes
//! its frame at once (no hand-off to another thread), while many callers in flight share
//! system calls. Both clients and servers use it.

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::Error;
use crate::header::HEADER_SIZE;
use crate::message::Message;

/// The sending half of a connection.
pub(crate) struct Outbox {
    stream: TcpStream,
    state: Mutex<OutState>,
}

#[derive(Default)]
struct OutState {
    queued: Vec<u8>,
    spare: Vec<u8>,
    writing: bool,
    closed: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Outbox {
    /// An outbox writing to `stream` (a clone of the socket the reader uses).
    pub fn new(stream: TcpStream) -> Outbox {
        Outbox {
            stream,
            state: Mutex::new(OutState::default()),
        }
    }

    /// Sends one message.
    pub fn send(&self, message: &Message) -> Result<(), Error> {
        self.send_parts(&message.header.encode(), &message.payload)
    }

    /// Sends a header and its payload.
    pub fn send_parts(&self, header: &[u8; HEADER_SIZE], payload: &[u8]) -> Result<(), Error> {
        let mut st = lock(&self.state);
        if let Some(why) = &st.closed {
            return Err(Error::Disconnected(why.clone()));
        }
        st.queued.extend_from_slice(header);
        st.queued.extend_from_slice(payload);
        if st.writing {
            return Ok(());
        }
        st.writing = true;
        loop {
            let mut chunk = std::mem::take(&mut st.spare);
            std::mem::swap(&mut chunk, &mut st.queued);
            drop(st);
            let written = (&self.stream).write_all(&chunk);
            chunk.clear();
            st = lock(&self.state);
            if chunk.capacity() <= 1 << 20 {
                st.spare = chunk;
            }
            if let Err(e) = written {
                st.writing = false;
                st.closed = Some(format!("write failed: {e}"));
                st.queued.clear();
                drop(st);
                let _ = self.stream.shutdown(Shutdown::Both);
                return Err(e.into());
            }
            if st.queued.is_empty() {
                st.writing = false;
                return Ok(());
            }
        }
    }

    /// Closes the socket (both directions); later sends fail with `why`.
    pub fn close(&self, why: &str) {
        let mut st = lock(&self.state);
        if st.closed.is_none() {
            st.closed = Some(why.to_string());
        }
        drop(st);
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}
