import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// libfuse's low-level callback table: each request names inodes; the ``NodeTable`` turns them into
/// paths, the ``KeychainView`` answers, and the reply says what the kernel may cache. No keychain
/// logic lives here.
enum LowLevelOperations {
    /// The callback table: each entry calls the named function of its operation (one per operation, as
    /// libfuse's examples are written). A C function pointer cannot capture: each closure only forwards.
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { LowLevelOperations.initialize($0, $1) }
        ops.lookup = { LowLevelOperations.lookup($0, $1, $2) }
        ops.forget = { LowLevelOperations.forget($0, $1, $2) }
        ops.forget_multi = { LowLevelOperations.forgetMany($0, $1, $2) }
        ops.getattr = { LowLevelOperations.getattr($0, $1, $2) }
        ops.setattr = { LowLevelOperations.setattr($0, $1, $2, $3, $4) }
        ops.access = { LowLevelOperations.access($0, $1, $2) }
        ops.statfs = { LowLevelOperations.statfs($0, $1) }
        ops.mkdir = { LowLevelOperations.mkdir($0, $1, $2, $3) }
        ops.rmdir = { LowLevelOperations.rmdir($0, $1, $2) }
        ops.unlink = { LowLevelOperations.unlink($0, $1, $2) }
        ops.rename = { LowLevelOperations.rename($0, $1, $2, $3, $4, $5) }
        ops.mknod = { LowLevelOperations.mknod($0, $1, $2, $3, $4) }
        ops.create = { LowLevelOperations.create($0, $1, $2, $3, $4) }
        ops.symlink = { LowLevelOperations.symlink($0, $1, $2, $3) }
        ops.link = { LowLevelOperations.link($0, $1, $2, $3) }
        ops.open = { LowLevelOperations.open($0, $1, $2) }
        ops.read = { LowLevelOperations.read($0, $1, $2, $3, $4) }
        ops.write = { LowLevelOperations.write($0, $1, $2, $3, $4, $5) }
        ops.flush = { LowLevelOperations.flush($0, $1, $2) }
        ops.fsync = { LowLevelOperations.fsync($0, $1, $2, $3) }
        ops.release = { LowLevelOperations.release($0, $1, $2) }
        ops.opendir = { LowLevelOperations.opendir($0, $1, $2) }
        ops.readdir = { LowLevelOperations.readdir($0, $1, $2, $3, $4) }
        ops.releasedir = { LowLevelOperations.releasedir($0, $1, $2) }
        ops.getxattr = { LowLevelOperations.getxattr($0, $1, $2, $3) }
        ops.listxattr = { LowLevelOperations.listxattr($0, $1, $2) }
        ops.setxattr = { LowLevelOperations.setxattr($0, $1, $2, $3, $4, $5) }
        ops.removexattr = { LowLevelOperations.removexattr($0, $1, $2) }
        return ops
    }

    static func context(_ req: fuse_req_t?) -> LowLevelContext {
        Unmanaged<LowLevelContext>.fromOpaque(fuse_req_userdata(req)!).takeUnretainedValue()
    }

    /// Per-application access: who the request runs as (docs/spec.md §12, the engine's ``PeerCaller``); nil
    /// when no rules apply (the mount's caller). The executable is not read here: this is every request.
    static func requestCaller(_ req: fuse_req_t?, _ c: LowLevelContext) throws(FSError) -> Caller? {
        guard let policy = c.view.accessPolicy, policy.decidesCallers else { return nil }
        let context = fuse_req_ctx(req)!.pointee
        do {
            return try PeerCaller.resolve(
                PeerProcess(pid: context.pid, uid: context.uid), policy: policy, fallback: c.view.mountCaller,
                namingExecutable: false)
        } catch {
            throw FSError(EACCES, error.message)
        }
    }

    /// Runs a request as its caller; a thrown error becomes its errno reply, logged by OSStatus.
    static func serve(_ req: fuse_req_t?, _ operation: StaticString, _ body: (LowLevelContext) throws(FSError) -> Void)
    {
        FuseThread.mark(operation)
        let c = context(req)
        AccessPolicy.asOneRequest {
            let caller: Caller?
            do throws(FSError) { caller = try requestCaller(req, c) } catch {
                reply(req, operation, c, error)
                return
            }
            serve(req, operation, as: caller, body)
        }
    }

    /// ``serve(_:_:_:)`` for a request whose caller was resolved already (nil: the mount's caller).
    static func serve(
        _ req: fuse_req_t?, _ operation: StaticString, as caller: Caller?,
        _ body: (LowLevelContext) throws(FSError) -> Void
    ) {
        FuseThread.mark(operation)
        let c = context(req)
        do throws(FSError) {
            guard let caller else { return try body(c) }
            let result: Result<Void, FSError> = KeychainView.$requestCaller.withValue(caller) {
                Result { () throws(FSError) in try body(c) }
            }
            try result.get()
        } catch {
            reply(req, operation, c, error)
        }
    }

    /// A request's failure: its errno reply, logged by OSStatus (never a name or value).
    private static func reply(_ req: fuse_req_t?, _ operation: StaticString, _ c: LowLevelContext, _ error: FSError) {
        if let status = error.status {
            let level: Logger.Level = status == SecStatus.itemNotFound ? .debug : .notice
            c.log.log(level: level, "\(operation) failed: \(SecStatus.name(of: status)) (\(status))")
        }
        fuse_reply_err(req, error.errno)
    }
}
