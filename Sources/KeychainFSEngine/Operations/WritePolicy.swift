import Foundation
import KeychainFSModel

/// The one write policy, beside the read policy: what a caller may change of an item's value, now. The
/// filesystem's `> value` and any other face that replaces a secret ask here rather than building an
/// update query of their own, so the lock, access groups, access control and the audit apply as they
/// do to SecItemUpdate.
extension Keychain {
    /// Replaces the secret of the item `persistentRef` with `data` for `caller`. `options` carries the
    /// face's UI mode and an open file's authorization (the filesystem passes UI fail: a protected value
    /// is refused, never prompted for, on a FUSE thread).
    public func write(_ data: Data, to persistentRef: Data, caller: Caller, options: AuthenticationOptions)
        throws(KeychainError)
    {
        guard let classCode = PersistentReference(persistentRef)?.classCode, let schema = Schema.schema(for: classCode)
        else {
            throw KeychainError.param("not a persistent reference to an item")
        }
        if schema.isVirtual {
            throw KeychainError.param("\(classCode) is a read-only view: change its certificate or key")
        }
        let query = [
            QueryKey.class: KeychainValue.string(classCode), QueryKey.valuePersistentRef: .data(persistentRef),
        ]
        .merging(options.queryKeys) { $1 }
        try update(query, [QueryKey.valueData: .data(data)], caller: caller)
    }
}
