import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// What a clone takes from the remote: a commit whose tree holds regular files only. A symlink or a
/// submodule that the host pushed (anywhere in the tree) is left out before git checks anything out or
/// merges, so sync never follows, reads or writes through one; the next push drops it from the branch.
package struct UntrustedTree {
    package let git: GitRunner
    /// A scratch index inside the clone's `.git`, for the filtered tree.
    package let scratchIndex: String
    /// Off only by ``SyncTestSwitch/untrustedTree``.
    package var filters = true

    /// `ref`'s commit when its tree holds regular files only; else a commit on top of it without the rest.
    package func regularFilesOnly(_ ref: String) throws(KeychainError) -> String {
        let commit = try git.run(["rev-parse", "--verify", "-q", ref + "^{commit}"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let foreign = filters ? try foreignPaths(commit) : []
        guard !foreign.isEmpty else { return commit }
        unlink(scratchIndex)
        defer { unlink(scratchIndex) }
        let scratch = ["GIT_INDEX_FILE": scratchIndex]
        try git.run(["read-tree", commit], environment: scratch)
        // update-index takes paths literally (no pathspec magic), whatever the host named them; in
        // batches, so that a host that pushed very many cannot exceed the argument list's limit.
        for start in stride(from: 0, to: foreign.count, by: 256) {
            let batch = Array(foreign[start..<min(start + 256, foreign.count)])
            try git.run(["update-index", "--force-remove", "--"] + batch, environment: scratch)
        }
        let tree = try git.run(["write-tree"], environment: scratch).trimmingCharacters(in: .whitespacesAndNewlines)
        return try git.run(["commit-tree", tree, "-p", commit, "-m", "keychainfs sync: links and submodules left out"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The paths in `commit`'s tree that are not regular files (mode 100644 or 100755): symlinks (120000)
    /// and submodules (160000). `ls-tree -r -z` prints `<mode> <type> <object>\t<path>` per entry.
    package func foreignPaths(_ commit: String) throws(KeychainError) -> [String] {
        try git.run(["ls-tree", "-r", "-z", "--full-tree", commit]).split(separator: "\0").compactMap { entry in
            guard let tab = entry.firstIndex(of: "\t") else { return nil }
            let mode = entry.prefix(6)
            return mode == "100644" || mode == "100755" ? nil : String(entry[entry.index(after: tab)...])
        }
    }
}
