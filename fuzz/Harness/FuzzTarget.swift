import Foundation
import KeychainFSSync

/// One libFuzzer target per parser that takes bytes from outside (docs/spec.md §8 "Fuzzing"). A target never
/// crashes on any input; beyond that, each checks the properties its parser promises (round trips,
/// canonical names) and reports a broken one as a ``PropertyViolation``.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// ValueCodec as the control socket and the sealed metadata use it, and the request/response shapes.
    case codec
    /// Length-prefixed control frames read from a real socket.
    case frames
    /// Query dictionaries, as the daemon decodes them, through the engine's public SecItem calls.
    case query
    /// Certificate DER and key representations (x963, PKCS#1).
    case der
    /// Path names and their escapes, for every class's group and item names.
    case names
    /// xattr values per attribute kind.
    case xattr
    /// The vault's own files: keybag JSON, vault.json, a stored row.
    case vault
    /// The sync repository's files and invitation codes (docs/spec.md §14).
    case sync
    /// The circle's files (docs/sync.md): membership log, keyring, join request, signed item file.
    case members
    /// `kc://` references, inject templates, env files and access.toml (docs/spec.md §12, §13).
    case workflow
    /// Key and certificate files for `security import` and SecPKCS12Import: PKCS#12, PEM (encrypted keys too), DER.
    case keyfiles
    /// What the Secret Service reads from clients and from kSecAttrGeneric (docs/secret-service.md).
    case secretservice

    /// Runs one input.
    public func run(_ data: Data) throws(PropertyViolation) {
        switch self {
        case .codec: try CodecTarget.run(data)
        case .frames: try FramesTarget.run(data)
        case .query: QueryTarget.run(data)
        case .der: DERTarget.run(data)
        case .names: try NamesTarget.run(data)
        case .xattr: try XattrTarget.run(data)
        case .vault: try VaultFilesTarget.run(data)
        case .sync: try SyncFilesTarget.run(data)
        case .members: try MembersTarget.run(data)
        case .workflow: try WorkflowTextTarget.run(data)
        case .keyfiles: try KeyFilesTarget.run(data)
        case .secretservice: try SecretServiceTarget.run(data)
        }
    }
}

/// A parser broke one of its promises on some input.
public struct PropertyViolation: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
