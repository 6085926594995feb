import KeychainFSCFuse
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// OPEN of a value whose item has access control (docs/spec.md §4 gatekeeper path, §11): the prompt is raised
/// and the request kept; the reply is sent later from the thread that delivers the answer, so no FUSE
/// worker waits for a person. FUSE_INTERRUPT (Ctrl-C on `cat`) cancels the prompt.
extension LowLevelOperations {
    /// What an interrupt callback reaches: the authorization to cancel.
    final class PendingOpen: @unchecked Sendable {
        var handle: AuthorizationHandle?
        var interrupted = false
        let lock = NSLock()
    }

    /// What ``openProtected(_:_:_:)`` resolved of an OPEN it left to the ordinary open, which uses it
    /// instead of resolving the caller and the inode's path a second time (measured: both were done twice
    /// per OPEN, a sixth of the daemon's time in the gatekeeper loop).
    struct OrdinaryOpen {
        let caller: Caller?
        let path: FSPath
        let node: FSNode
    }

    /// Takes over `req` if it opens a protected value (then nil: it is answered now or when the prompt is);
    /// otherwise what it resolved, for the ordinary open to serve it.
    static func openProtected(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?)
        -> OrdinaryOpen?
    {
        FuseThread.mark()
        let c = context(req)
        let item: FSItem
        let path: FSPath
        let caller: Caller?
        do throws(FSError) {
            caller = try requestCaller(req, c)
            // Resolved as the request's caller (per-application access), here and in the answer's callback.
            let found = KeychainView.$requestCaller.withValue(caller) {
                Result { () throws(FSError) in
                    let (path, node) = try c.resolved(inode); return (path, node, try c.view.protectedValue(node))
                }
            }
            let (resolved, node, protected) = try found.get()
            guard let protected else { return OrdinaryOpen(caller: caller, path: resolved, node: node) }
            (path, item) = (resolved, protected)
        } catch {
            fuse_reply_err(req, error.errno)
            return nil
        }
        nonisolated(unsafe) let request = req
        nonisolated(unsafe) var file = info!.pointee  // the kernel's copy lives only during this call
        let (pid, user) = (fuse_req_ctx(req)!.pointee.pid, fuse_req_ctx(req)!.pointee.uid)
        let pending = PendingOpen()
        let retained = Unmanaged.passRetained(pending)
        // Registered before anything can reply: after a reply libfuse never calls it.
        fuse_req_interrupt_func(
            req,
            { _, data in
                guard let data else { return }
                let box = Unmanaged<PendingOpen>.fromOpaque(data).takeUnretainedValue()
                box.lock.lock()
                box.interrupted = true
                let handle = box.handle
                box.lock.unlock()
                handle?.cancel()
            }, retained.toOpaque())
        let handle = c.view.authorizeOpen(item, pid: pid) { result in
            switch result {
            case .failure(let error):
                try? c.recordOpen(request, path, error, caller: caller)
                fuse_reply_err(request, error.errno)
            case .success(let token):
                do throws(FSError) {
                    let opened = KeychainView.$requestCaller.withValue(caller) {
                        Result { () throws(FSError) in
                            try c.view.open(path, flags: file.flags, authorization: token, user: user)
                        }
                    }
                    file.fh = try opened.get().handle
                    do throws(FSError) { try c.recordOpen(request, path, nil, caller: caller) } catch {
                        c.view.discard(file.fh)  // an open that cannot be recorded is refused
                        throw error
                    }
                    file.direct_io = 1  // never served from the kernel's cache: every read reaches the policy
                    file.keep_cache = 0
                    file.noflush = file.flags & O_ACCMODE == O_RDONLY ? 1 : 0
                    c.cache.noteServed(inode)
                    fuse_reply_open(request, &file)
                } catch {
                    c.view.endAuthorization(token)
                    fuse_reply_err(request, error.errno)
                }
            }
            // An interrupt callback may still be running; the box outlives it by a margin.
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { retained.release() }
        }
        pending.lock.lock()
        pending.handle = handle
        let interrupted = pending.interrupted
        pending.lock.unlock()
        if interrupted { handle.cancel() }
        return nil
    }
}
