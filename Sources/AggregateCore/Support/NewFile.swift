package import Foundation

/// Creates the file at `path`, which must not exist yet, with `mode`; writes all of `data` (retrying interrupted and
/// short writes) and, with `flush`, forces it to disk. Returns 0, or the `errno` of what failed, for the caller to
/// report in its own words. Shared by the files that are written under a temporary name and then renamed.
package func writeNewFile(_ data: Data, at path: String, mode: mode_t, flush: Bool) -> Int32 {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { return errno }
    defer { close(descriptor) }
    var failure: Int32 = 0
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                return
            }
            offset += written
        }
    }
    if failure == 0, flush, fsync(descriptor) != 0 { failure = errno }
    return failure
}
