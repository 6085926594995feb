import Foundation

/// A persistent reference (docs/reference/keychain-semantics.md §6.3): 4 ASCII bytes of the class + the row's 16-byte UUID,
/// stable across updates. The legacy 12-byte form (class + big-endian rowid) is parsed too.
public struct PersistentReference: Sendable, Hashable {
    public enum Target: Sendable, Hashable { case uuid(Data), rowid(Int64) }

    public let classCode: String
    public let target: Target

    package init(classCode: String, uuid: Data) {
        self.classCode = classCode
        self.target = .uuid(uuid)
    }

    /// Parses a reference; nil unless it is 20 (or legacy 12) bytes naming a served class.
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count == 20 || bytes.count == 12,
            let code = String(validating: bytes[0..<4], as: UTF8.self), Schema.schema(for: code) != nil
        else { return nil }
        classCode = code
        if bytes.count == 20 {
            target = .uuid(Data(bytes[4...]))
        } else {
            target = .rowid(Int64(bitPattern: bytes[4...].reduce(0) { $0 << 8 | UInt64($1) }))
        }
    }

    /// The 20-byte wire form.
    public var data: Data {
        guard case .uuid(let uuid) = target else { preconditionFailure("only UUID references are issued") }
        // Through bytes: `Data(String.UTF8View) + Data` appends piece by piece (measured).
        var bytes = [UInt8]()
        bytes.reserveCapacity(classCode.utf8.count + uuid.count)
        bytes.append(contentsOf: classCode.utf8)
        uuid.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return Data(bytes)
    }
}
