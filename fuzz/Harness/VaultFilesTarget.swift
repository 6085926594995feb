import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import KeychainFSSodium

/// The vault's own files, as a copied, damaged or planted vault would hand them to the daemon: the keybag
/// (JSON with sealed keys), vault.json, and one row as stored. The first byte picks the file. They are read
/// with the committed fixture device key and keybag (fuzz/fixtures), so sealed seeds open.
enum VaultFilesTarget {
    /// Where the inputs are written to be read back as files.
    private static let scratch: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-fuzz-vault-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(
                atPath: FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-fuzz-vault-\(getpid())")
                    .path)
        }
        return path
    }()
    private static let deviceKey: GuardedKey = {
        do { return try DeviceKey.load(from: FuzzFixtures.deviceKeyPath) } catch {
            fatalError("fuzz fixture: \(error)")
        }
    }()
    private static let keybag: Keybag = {
        do { return try Keybag(path: FuzzFixtures.keybagPath, deviceKey: deviceKey) } catch {
            fatalError("fuzz fixture: \(error)")
        }
    }()

    static func run(_ data: Data) throws(PropertyViolation) {
        guard let selector = data.first else { return }
        let content = Data(data.dropFirst())
        switch selector % 3 {
        case 0:
            let path = scratch + "/keybag"
            guard FileManager.default.createFile(atPath: path, contents: content) else { return }
            _ = try? Keybag(path: path, deviceKey: deviceKey)
        case 1:
            guard FileManager.default.createFile(atPath: scratch + "/vault.json", contents: content) else { return }
            _ = try? Vault(directory: scratch).config()
        default:
            try openRow(content)
        }
    }

    /// A row in the shape ``StoredRowCoding`` gives it; opening must fail with errSecDecode or give a dictionary.
    private static func openRow(_ content: Data) throws(PropertyViolation) {
        guard let (row, schema) = StoredRowCoding.decode(content), let keys = try? keybag.keys(for: row.accessibility)
        else { return }
        do {
            _ = try ItemSealer.openAttributes(
                row, schema: schema, metadataKey: keys.metadataKey, acceptingUnshaped: true)
        } catch {
            guard error.status == SecStatus.decode else {
                throw PropertyViolation("a damaged row gave \(error.status), not errSecDecode")
            }
        }
        do { _ = try ItemSealer.openSecret(row, classCode: schema.code, keys: keys) } catch {
            guard error.status == SecStatus.decode else {
                throw PropertyViolation("a damaged secret gave \(error.status), not errSecDecode")
            }
        }
    }
}

/// The committed fixture vault keys (a test-only device key: nothing secret is sealed under it).
enum FuzzFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures").path
    static var deviceKeyPath: String { directory + "/device.key" }
    static var keybagPath: String { directory + "/keybag" }
}

/// A stored row as ValueCodec bytes, so the fuzzer mutates its fields structurally.
enum StoredRowCoding {
    static func encode(_ row: StoredRow, classCode: String) -> Data {
        ValueCodec.encode(
            .dictionary([
                "class": .string(classCode), "pdmn": .string(row.accessibility.rawValue), "uuid": .data(row.uuid),
                "metadata": .data(row.metadata), "rowKey": .data(row.rowKey),
                "secret": row.secret.map(KeychainValue.data) ?? .bool(false),
                "lookups": .array(row.lookups.map { $0.map(KeychainValue.data) ?? .bool(false) }),
            ]))
    }

    static func decode(_ data: Data) -> (StoredRow, ItemClassSchema)? {
        guard case .dictionary(let d)? = try? ValueCodec.decode(data),
            let schema = d["class"]?.stringValue.flatMap(Schema.schema(for:)), !schema.isVirtual,
            let accessibility = d["pdmn"]?.stringValue.flatMap(Accessibility.init(rawValue:)),
            let uuid = d["uuid"]?.dataValue, let metadata = d["metadata"]?.dataValue,
            let rowKey = d["rowKey"]?.dataValue,
            let lookups = d["lookups"]?.arrayValue
        else { return nil }
        let row = StoredRow(
            rowid: 1, uuid: uuid, accessibility: accessibility, metadata: metadata, rowKey: rowKey,
            secret: d["secret"]?.dataValue, lookups: lookups.map(\.dataValue))
        return (row, schema)
    }
}
