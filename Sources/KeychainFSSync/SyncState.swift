import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation

/// What this vault last exchanged with the repository, per item file: the local row it stands for (and
/// that row's fingerprint) and the file's hash. Kept in `sync/state.json`; it holds no attribute or secret.
package struct SyncState: Codable {
    package struct Entry: Codable, Equatable {
        /// The local row's UUID (hex), nil when the item is gone here (its file is a tombstone).
        package var uuid: String?
        /// The local row's fingerprint (hex) when last exported or imported.
        package var fingerprint: String?
        /// SHA-256 (hex) of the file as last written or read.
        package var fileHash: String
    }

    package var entries: [String: Entry] = [:]

    package static func load(_ path: String) -> SyncState {
        guard let data = FileManager.default.contents(atPath: path),
            let state = try? JSONDecoder().decode(SyncState.self, from: data)
        else {
            return SyncState()
        }
        return state
    }

    package func save(_ path: String) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(self) else {
            throw KeychainError(SecStatus.internalComponent, "cannot encode the sync state")
        }
        try FileIO.writeAtomically(data, to: path, mode: 0o600)
    }

    package static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
    package static func fileHash(_ data: Data) -> String { hex(Data(SHA256.hash(data: data))) }
}
