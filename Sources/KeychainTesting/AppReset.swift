import KeychainFSEngine
import KeychainFSModel

extension SimulatedDevice {
    /// Deletes `app` as iOS does and leaves the rest: the items in its access groups are removed, except
    /// in groups another app that ran on this device (`run(as:)`) also holds, whose items stay for it.
    /// Other apps' items are untouched. Works while the device is locked.
    public func reset(app: App) throws(KeychainError) {
        let shared = Set(apps.withLock { $0.keys.filter { $0 != app } }.flatMap(\.accessGroups))
        for group in app.accessGroups where !shared.contains(group) {
            try Self.deleteEverything(in: group, engine: engine)
        }
    }

    /// Deletes every item of every class in `group`, synchronizable or not (the engine's SecItemDelete).
    private static func deleteEverything(in group: String, engine: Keychain) throws(KeychainError) {
        let caller = Caller(accessGroups: [group])
        for schema in Schema.storedClasses {
            let all: KeychainDictionary = [
                QueryKey.class: .string(schema.code),
                Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
            ]
            do {
                try engine.delete(all, caller: caller)
            } catch let error where error.status == SecStatus.itemNotFound {}
        }
    }
}
