import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// The signals of every change, whoever made it (a Secret Service client, the mount, the CLI, the
/// Security module): a listener on the engine's changes (``Keychain/addChangeObserver(_:)``) schedules a
/// rescan of the items on a queue of its own, coalescing bursts, and compares it with the last one:
/// ItemCreated / ItemDeleted / ItemChanged and CollectionChanged, and PropertiesChanged of the collection's
/// Items, Locked, Modified and Label, as gnome-keyring sends them.
final class ChangeSignals: Sendable {
    private let keychain: Keychain
    private let face: VaultFace
    private let label: CollectionLabel
    private let caller: Caller
    private let link: BusLink
    private let queue = DispatchQueue(label: "secret-service-changes")
    private let scheduled = Atomic<Bool>(false)
    private let last = Mutex<Snapshot?>(nil)
    private typealias Snapshot = (items: [Data: ServiceItem], locked: Bool, label: String)
    /// Items whose own PropertiesChanged goes out at a lock or unlock (a bigger vault's others do not get one).
    static let maxItemSignals = 1024

    init(keychain: Keychain, face: VaultFace, label: CollectionLabel, caller: Caller, link: BusLink) {
        self.keychain = keychain
        self.face = face
        self.label = label
        self.caller = caller
        self.link = link
    }

    func start() {
        queue.sync { last.withLock { $0 = snapshot() } }
        keychain.addChangeObserver { [self] _ in schedule() }
    }

    private func schedule() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(20)) { [self] in
            scheduled.store(false, ordering: .releasing)
            compare()
        }
    }

    /// The items now (the last ones known while the device is locked: their attributes are sealed then).
    private func snapshot(keeping known: [Data: ServiceItem] = [:]) -> Snapshot {
        let locked = !keychain.isAvailable(.whenUnlocked)
        let label = label.current(caller)
        guard !locked, let items = try? face.items(caller) else { return (known, locked, label) }
        return (Dictionary(items.map { ($0.reference, $0) }, uniquingKeysWith: { a, _ in a }), locked, label)
    }

    private func compare() {
        guard let before = last.withLock({ $0 }) else { return }
        let now = snapshot(keeping: before.items)
        last.withLock { $0 = now }
        let collection = ObjectPath.collectionPath
        var signals: [BusSignal] = []
        func itemSignal(_ member: String, _ reference: Data) {
            signals.append(
                BusSignal(
                    path: collection, interface: ServiceObjects.collectionInterface, member: member,
                    arguments: [.objectPath(ObjectPath.itemPath(reference))]))
        }
        for reference in now.items.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            if let old = before.items[reference] {
                if old != now.items[reference] { itemSignal("ItemChanged", reference) }
            } else {
                itemSignal("ItemCreated", reference)
            }
        }
        for reference in before.items.keys where now.items[reference] == nil { itemSignal("ItemDeleted", reference) }
        var changed: [String: BusValue] = [:]
        if now.items.keys != before.items.keys {
            changed["Items"] = .paths(now.items.keys.map(ObjectPath.itemPath).sorted())
        }
        if now.locked != before.locked {
            changed["Locked"] = .bool(now.locked)
            // Each item's Locked too, so a client's cached item proxies follow (at most ``maxItemSignals``).
            for reference in now.items.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).prefix(Self.maxItemSignals)
            {
                signals.append(
                    BusSignal(
                        path: ObjectPath.itemPath(reference), interface: ServiceObjects.propertiesInterface,
                        member: "PropertiesChanged",
                        arguments: [
                            .string(ServiceObjects.itemInterface), .properties(["Locked": .bool(now.locked)]),
                            .array(element: "s", []),
                        ]))
            }
        }
        if now.label != before.label { changed["Label"] = .string(now.label) }
        if !signals.isEmpty, let modified = now.items.values.map(\.modified).max() {
            changed["Modified"] = .uint64(ServiceObjects.seconds(modified))
        }
        guard !signals.isEmpty || !changed.isEmpty else { return }
        signals.append(
            BusSignal(
                path: collection, interface: ServiceObjects.propertiesInterface, member: "PropertiesChanged",
                arguments: [
                    .string(ServiceObjects.collectionInterface), .properties(changed), .array(element: "s", []),
                ]))
        signals.append(
            BusSignal(
                path: ObjectPath.root, interface: ServiceObjects.serviceInterface, member: "CollectionChanged",
                arguments: [.objectPath(collection)]))
        for signal in signals { link.emit(signal) }
    }
}
