import Foundation

/// Why a file-system call failed, in our words: "permission denied", "no space left on the device".
///
/// Foundation's own descriptions ("The operation could not be completed. The file doesn't exist.") name neither
/// the path nor the cause in a way a user can act on, and differ between platforms, so every message about a file
/// we could not read or write takes its reason from here and names the path itself.
public enum FileSystemReason {
    /// The reason for an error thrown by Foundation's file APIs (or a POSIX error), falling back to a generic one.
    public static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return describe(errno: posix.code.rawValue) }
        if let code = posixCode(of: error as NSError) { return describe(errno: code) }
        if let cocoa = error as? CocoaError, let reason = reason(for: cocoa.code) { return reason }
        return "an input/output error"
    }

    /// The reason for a POSIX `errno` value.
    public static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file or folder"
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "no space left on the device"
        case EDQUOT: return "the disk quota is exceeded"
        case EROFS: return "the file system is read-only"
        case EISDIR: return "it is a folder, not a file"
        case ENOTDIR: return "a part of the path is not a folder"
        case EEXIST: return "it already exists"
        case ENAMETOOLONG: return "the name is too long"
        case ELOOP: return "too many symbolic links"
        case EBADF: return "it is closed"
        case EPIPE: return "the reader has gone (broken pipe)"
        case EFBIG: return "the file is too large"
        case EMFILE, ENFILE: return "too many open files"
        case ENOTEMPTY: return "the folder is not empty"
        case EBUSY: return "it is busy"
        case ENXIO, ENODEV: return "there is no such device"
        case EAGAIN: return "it would block"
        default: return "an input/output error (errno \(code))"
        }
    }

    /// The POSIX code inside an `NSError`: its own, or that of the error it wraps.
    private static func posixCode(of error: NSError) -> Int32? {
        if error.domain == NSPOSIXErrorDomain { return Int32(truncatingIfNeeded: error.code) }
        // On Linux the wrapped error is a Swift `POSIXError`, which does not cast to `NSError` from `Any`.
        switch error.userInfo[NSUnderlyingErrorKey] {
        case let posix as POSIXError: return posix.code.rawValue
        case let underlying as NSError: return posixCode(of: underlying)
        default: return nil
        }
    }

    private static func reason(for code: CocoaError.Code) -> String? {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return describe(errno: ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return describe(errno: EACCES)
        case .fileWriteOutOfSpace: return describe(errno: ENOSPC)
        case .fileWriteVolumeReadOnly: return describe(errno: EROFS)
        case .fileWriteFileExists: return describe(errno: EEXIST)
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "the name is not valid"
        case .fileReadTooLarge: return describe(errno: EFBIG)
        case .fileReadCorruptFile, .fileReadUnknown, .fileWriteUnknown: return nil
        default: return nil
        }
    }
}
