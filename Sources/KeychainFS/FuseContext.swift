import CFuse
import Foundation
import KeychainEngine
import Logging

/// What every FUSE callback reaches through `fuse_get_context()->private_data`.
final class FuseContext: Sendable {
    let view: KeychainView
    let log: Logger

    init(view: KeychainView, log: Logger) {
        self.view = view
        self.log = log
    }

    static var current: FuseContext {
        Unmanaged<FuseContext>.fromOpaque(fuse_get_context()!.pointee.private_data).takeUnretainedValue()
    }

    /// The calling process (for the recursive-removal rule).
    static var callerPID: Int32 { fuse_get_context()!.pointee.pid }

    /// Runs an operation and turns its error into `-errno`, logging keychain failures by OSStatus.
    /// Log lines carry the operation and status only: never a path, name or value.
    static func run(_ operation: StaticString, _ body: (KeychainView) throws(FSError) -> Int32) -> Int32 {
        let context = current
        do {
            return try body(context.view)
        } catch {
            if let status = error.status {
                let level: Logger.Level = status == SecStatus.itemNotFound ? .debug : .notice
                context.log.log(level: level, "\(operation) failed: \(SecStatus.name(of: status)) (\(status))")
            }
            return -error.errno
        }
    }
}
