import Foundation
import Synchronization

/// The `value` files whose size the kernel may hold in its attribute cache (answered by GETATTR or grown
/// by a write): a device change invalidates them before the command returns, so `stat` after `device
/// lock` asks the daemon (and gets EACCES) instead of showing the secret's length (issue 16, defect 9).
final class KernelAttributeCache: Sendable {
    private let paths = Mutex<Set<[UInt8]>>([])
    private let invalidator = Mutex<(@Sendable ([UInt8]) -> Void)?>(nil)

    func noteSized(_ path: [UInt8]) {
        _ = paths.withLock { $0.insert(path) }
    }

    /// Set by the FUSE frontend while its session exists (nil after).
    func setInvalidator(_ invalidate: (@Sendable ([UInt8]) -> Void)?) {
        invalidator.withLock { $0 = invalidate }
    }

    /// Invalidates every noted path (kernel requests in flight with older attributes are discarded by the
    /// kernel's attribute versioning).
    func invalidateAll() {
        let noted = paths.withLock { set in defer { set.removeAll() }; return set }
        invalidator.withLock { invalidate in
            guard let invalidate else { return }
            for path in noted { invalidate(path) }
        }
    }
}
