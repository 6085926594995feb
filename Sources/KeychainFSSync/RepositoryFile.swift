import KeychainFSModel
import KeychainFSStore
import Foundation

/// A file of the clone's working tree, which the host wrote: read never through a link, only if it is a
/// regular file, and only up to its kind's bound, checked on the opened file before a byte is read (a
/// host's 2 GiB file costs nothing), as the membership log and the keyring are (``SyncSession/originFile``).
package enum RepositoryFile {
    /// An item file: a record of the largest value (1 MiB) with its attributes, padded to a power of two,
    /// is far smaller. git's merge driver reads the two versions of one with the same bound.
    package static let maxItemBytes = 16 << 20
    /// An invitation file: a few keys and the membership log's pin.
    package static let maxInvitationBytes = 64 << 10

    /// The content of the file at `path` in the clone, nil when nothing is there; refused, naming the
    /// file and the bound, when it is larger than `limit` bytes.
    package static func read(_ path: String, limit: Int) throws(KeychainError) -> Data? {
        try FileIO.read(path, limit: limit, what: "repository's file")
    }
}
