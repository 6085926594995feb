import Foundation
import KeychainFSModel

/// The mount's naming rules for code outside the filesystem (`keychainfs run` / `inject` references):
/// the same names, escapes and qualifiers a path in the mount uses, so a reference copied from `ls`
/// finds the same item.
package enum MountNames {
    /// The query for the item at `<class>/<group>/<item>` as the mount names it for a caller whose first
    /// access group is `defaultGroup`; nil when the names are not canonical (or shortened: those are
    /// found only by listing).
    package static func itemQuery(classCode: String, groupName: String, itemName: String, defaultGroup: String)
        -> KeychainDictionary?
    {
        guard let schema = Schema.schema(for: classCode), !schema.isVirtual else { return nil }
        let naming = ItemNaming(schema: schema, defaultGroup: defaultGroup)
        let group = Array(groupName.utf8), item = Array(itemName.utf8)
        guard !ItemNaming.isShortened(group), !ItemNaming.isShortened(item),
            let groupValue = naming.parseGroup(group), let key = naming.parseItem(item)
        else { return nil }
        return key.merging([QueryKey.class: .string(classCode), schema.namingAttributes.group.code: groupValue]) { $1 }
    }

    /// An attribute (by constant name, `kSecAttrLabel`) of class `classCode`, as its xattr's bytes;
    /// nil when the class has no such attribute or the item lacks it.
    package static func attributeBytes(_ attributes: [String: KeychainValue], named constant: String, classCode: String)
        -> Data?
    {
        guard let attribute = Schema.schema(for: classCode)?.attribute(named: constant),
            let value = attributes[attribute.code]
        else { return nil }
        return XattrFormat.encode(value, as: attribute)
    }

    /// Whether class `classCode` has an attribute with this constant name.
    package static func hasAttribute(named constant: String, classCode: String) -> Bool {
        Schema.schema(for: classCode)?.attribute(named: constant) != nil
    }
}
