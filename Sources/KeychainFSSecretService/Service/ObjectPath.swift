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
        // Items first: most calls name one (no other path starts with the item prefix).
        if path.hasPrefix(itemPrefix) { return hex(path.utf8.dropFirst(itemPrefix.utf8.count)).map(ObjectPath.item) }
        if path == root { return .service }
        if path == collectionPath || aliasPaths.contains(path) { return .collection }
        if parentPaths.contains(path) { return .node(path) }
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
    private static func hex(_ text: Substring.UTF8View) -> Data? {
        guard !text.isEmpty, text.count % 2 == 0, text.count <= 512 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for c in text {
            guard let value = nibble(c) else { return nil }
            if let h = high {
                bytes.append(h << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return Data(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
