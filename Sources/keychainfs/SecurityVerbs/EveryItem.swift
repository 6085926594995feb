import KeychainFSEngine
import KeychainFSModel

extension Dictionary where Key == String, Value == KeychainValue {
    /// The query with kSecAttrSynchronizable: kSecAttrSynchronizableAny (unless it names sync itself): the
    /// `security` verbs find, dump and delete every item, synchronizable or not, as macOS's do.
    var includingSynchronizable: Self {
        merging([Attributes.synchronizable.code: .string(QueryKey.synchronizableAny)]) { given, _ in given }
    }
}
