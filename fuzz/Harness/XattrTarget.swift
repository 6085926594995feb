import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
@testable import KeychainFSFuse

/// xattr values per attribute kind (docs/spec.md §4 "Attributes as xattrs"): the first byte picks an attribute of
/// some class, the rest is what setfattr wrote. A value that parses prints as bytes that parse to it again.
enum XattrTarget {
    private static let attributes: [AttributeDescriptor] = Schema.classes.flatMap(\.attributes)

    static func run(_ data: Data) throws(PropertyViolation) {
        guard let selector = data.first else { return }
        let attribute = attributes[Int(selector) % attributes.count]
        guard let value = XattrFormat.decode(Data(data.dropFirst()), as: attribute) else { return }
        let printed = XattrFormat.encode(value, as: attribute)
        guard let again = XattrFormat.decode(printed, as: attribute) else {
            throw PropertyViolation("\(attribute.name): value printed as \(printed.count) bytes that do not parse")
        }
        guard XattrFormat.encode(again, as: attribute) == printed else {
            throw PropertyViolation("\(attribute.name): value does not print the same after a round trip")
        }
    }
}
