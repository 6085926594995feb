import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
@testable import KeychainFSFuse

/// Path names (docs/spec.md §4 "Layout"): escaping is reversible and only the canonical spelling is accepted, so a
/// name that parses is exactly the name its attributes print (every listed name resolves, every name that
/// resolves is the one listed). The first byte picks the class; the rest is the name.
enum NamesTarget {
    private static let namings = Schema.classes.map { ItemNaming(schema: $0, defaultGroup: "default") }

    static func run(_ data: Data) throws(PropertyViolation) {
        guard let selector = data.first else { return }
        let name = [UInt8](data.dropFirst())
        let escaped = NameEscaping.escape(name)
        guard NameEscaping.unescape(Array(escaped.utf8)) == name else {
            throw PropertyViolation("escape does not reverse: \(escaped)")
        }
        if let raw = NameEscaping.unescape(name), NameEscaping.escape(raw) != String(decoding: name, as: UTF8.self) {
            throw PropertyViolation("a non-canonical spelling was accepted")
        }
        let naming = namings[Int(selector) % namings.count]
        guard name.count <= ItemNaming.maxNameBytes else { return }  // longer names are shortened on the way out
        if let group = naming.parseGroup(name) {
            let printed = naming.groupName([naming.schema.namingAttributes.group.code: group])
            guard Array(printed.utf8) == name else {
                throw PropertyViolation("group name \(escapedForReport(name)) parses but prints as \(printed)")
            }
        }
        if let attributes = naming.parseItem(name) {
            let printed = naming.itemName(attributes, disambiguated: true)
            guard Array(printed.utf8) == name else {
                throw PropertyViolation("item name \(escapedForReport(name)) parses but prints as \(printed)")
            }
        }
    }

    private static func escapedForReport(_ bytes: [UInt8]) -> String { NameEscaping.escape(bytes) }
}
