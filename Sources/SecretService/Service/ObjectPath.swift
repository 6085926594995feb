import Foundation

/// The objects the service exports, by path (gnome-keyring's layout, which clients' caches expect).
enum ObjectPath: Equatable {
    case service
    /// The vault's one collection, also reached through its aliases.
    case collection
    case item(Data)
    case session(UInt64)
    case prompt(UInt64)
    /// A parent of the service's objects (introspection walks them).
    case node(String)

    static let root = "/org/freedesktop/secrets"
    static let collectionPath = root + "/collection/login"
    /// The aliases the collection answers to (ReadAlias; clients also call the alias paths directly).
    static let aliases = ["default", "login"]
    /// What "nothing" is where the API wants an object path (no prompt, no such alias).
    static let none = "/"

    /// Every call's path is parsed: the paths it is compared with are made once.
    private static let aliasPaths = aliases.map { root + "/aliases/" + $0 }
    private static let parentPaths = ["/collection", "/aliases", "/session", "/prompt"].map { root + $0 }
    private static let itemPrefix = collectionPath + "/"
    private static let sessionPrefix = root + "/session/s"
    private static let promptPrefix = root + "/prompt/p"

    static func parse(_ path: String) -> ObjectPath? {
        if path == root { return .service }
        if path == collectionPath || aliasPaths.contains(path) { return .collection }
        if parentPaths.contains(path) { return .node(path) }
        if path.hasPrefix(itemPrefix), let reference = hex(String(path.dropFirst(itemPrefix.count))) {
            return .item(reference)
        }
        if let id = number(path, after: sessionPrefix) { return .session(id) }
        if let id = number(path, after: promptPrefix) { return .prompt(id) }
        return nil
    }

    /// The item's path: its persistent reference in lower-case hex. Written byte by byte, not through
    /// String(format:), which was a twentieth of the service's time in a `secret-tool lookup`.
    static func itemPath(_ reference: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var path = Array(itemPrefix.utf8)
        path.reserveCapacity(path.count + reference.count * 2)
        for byte in reference {
            path.append(digits[Int(byte >> 4)])
            path.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: path, as: UTF8.self)
    }
    static func sessionPath(_ id: UInt64) -> String { sessionPrefix + String(id) }
    static func promptPath(_ id: UInt64) -> String { promptPrefix + String(id) }

    private static func number(_ path: String, after prefix: String) -> UInt64? {
        guard path.hasPrefix(prefix) else { return nil }
        return UInt64(String(path.dropFirst(prefix.count)))
    }

    /// Lower-case hex digits as bytes; nil for anything else (a bounded, total parse of a client's path).
    private static func hex(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 512 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
