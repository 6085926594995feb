import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A failed filesystem operation: the errno returned to the kernel, and the OSStatus behind it if any.
package struct FSError: Error, CustomStringConvertible, Sendable {
    package let errno: Int32
    package let status: OSStatus?
    package let message: String

    package init(_ errno: Int32, _ message: String) {
        self.errno = errno
        self.status = nil
        self.message = message
    }

    /// The errno of a keychain error, from the one table.
    package init(_ error: KeychainError) {
        self.errno = ErrnoTable.errno(for: error.status)
        self.status = error.status
        self.message = error.message
    }

    package var description: String {
        let code = status.map { " \(SecStatus.name(of: $0))" } ?? ""
        return "\(String(cString: strerror(errno)))\(code): \(message)"
    }
}

/// The one table mapping OSStatus to errno (docs/spec.md §4 "Errors").
package enum ErrnoTable {
    package static let table: [(status: OSStatus, errno: Int32)] = [
        (SecStatus.itemNotFound, ENOENT),
        (SecStatus.duplicateItem, EEXIST),
        (SecStatus.interactionNotAllowed, EACCES),
        (SecStatus.authFailed, EPERM),
        (SecStatus.dataNotAvailable, EPERM),  // a secret the schema withholds (a key that is not extractable)
        (SecStatus.param, EINVAL),
        (SecStatus.noSuchAttr, ENOTSUP),  // on set; a get of an attribute the item lacks is ENODATA
        (SecStatus.missingEntitlement, EACCES),
        (SecStatus.decode, EIO),
        (SecStatus.notAvailable, EIO),
        (SecStatus.readOnly, EPERM),
        (SecStatus.noSuchClass, ENOENT),
        (SecStatus.unimplemented, ENOSYS),
        (SecStatus.userCanceled, ECANCELED),  // an authentication prompt was canceled (docs/spec.md §11)
    ]

    /// The OSStatus an errno stands for, the other way through the table (errSecParam for the rest: the
    /// filesystem's own refusals of bad input).
    package static func status(for errno: Int32) -> OSStatus {
        table.first { $0.errno == errno }?.status ?? SecStatus.param
    }

    /// The errno for `status` (EIO for anything unexpected).
    package static func errno(for status: OSStatus) -> Int32 {
        table.first { $0.status == status }?.errno ?? EIO
    }
}

/// Runs a keychain call, turning its error into an ``FSError``.
func keychainCall<T>(_ body: () throws(KeychainError) -> T) throws(FSError) -> T {
    do { return try body() } catch { throw FSError(error) }
}
