import Foundation
@testable import KeychainFSControlChannel
import KeychainFSEngine
import KeychainFSModel

/// Query dictionaries as the daemon decodes them (a ValueCodec request frame), through the engine's
/// public SecItem calls on a real in-process vault, as the daemon's handler makes them. Every outcome
/// but a crash is allowed: a bad query must give an OSStatus.
enum QueryTarget {
    /// A fresh test vault in a temporary directory, one per process, removed at exit.
    private static let keychain: Keychain = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-fuzz-query-\(getpid())")
            .path
        atexit {
            try? FileManager.default.removeItem(
                atPath: FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-fuzz-query-\(getpid())")
                    .path)
        }
        do {
            let vault = try Vault.create(at: directory, testDevice: true)
            return try Keychain(vault: vault)
        } catch { fatalError("cannot make the fuzz vault: \(error)") }
    }()
    nonisolated(unsafe) private static var runs = 0

    static func run(_ data: Data) {
        guard let value = try? ValueCodec.decode(data), let request = try? ControlRequest(decoding: value) else {
            return
        }
        let args = request.arguments
        let caller =
            args["accessGroups"]?.arrayValue.map { Caller(accessGroups: $0.compactMap(\.stringValue)) } ?? Caller()
        let query = args["query"]?.dictionaryValue ?? [:]
        switch request.command {
        case .itemAdd: _ = try? keychain.add(query, caller: caller)
        case .itemCopyMatching: _ = try? keychain.copyMatching(query, caller: caller)
        case .itemUpdate: try? keychain.update(query, args["attributes"]?.dictionaryValue ?? [:], caller: caller)
        case .itemDelete: try? keychain.delete(query, caller: caller)
        default: return  // device commands run Argon2id: not parsers, and too slow to fuzz
        }
        runs += 1
        if runs % 500 == 0 { emptyVault() }
    }

    /// Keeps scans short: a long run would otherwise add thousands of items.
    private static func emptyVault() {
        for schema in Schema.storedClasses {
            try? keychain.delete([QueryKey.class: .string(schema.code), "syna": .bool(true)], caller: Caller())
        }
    }
}
