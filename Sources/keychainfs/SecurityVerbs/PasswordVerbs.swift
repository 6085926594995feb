import ArgumentParser
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// add-, find- and delete- for one password class, shared by the generic and internet verbs.
enum PasswordVerbs {
    /// The given attributes that identify an item (its class's UNIQUE set, from the schema table).
    static func identity(_ attributes: KeychainDictionary, classCode: String) -> KeychainDictionary {
        let keys = Set((Schema.schema(for: classCode)?.primaryKey ?? []).map(\.code) + [QueryKey.class])
        return attributes.filter { keys.contains($0.key) }
    }

    static func add(
        _ attributes: KeychainDictionary, password: Data, update: Bool, keychain: KeychainArgument, operation: String
    ) throws {
        let connection = try keychain.connect(for: operation)
        var item = attributes
        item[QueryKey.valueData] = .data(password)
        do {
            _ = try connection.add(item)
        } catch let error where error.status == SecStatus.duplicateItem && update {
            var changes = attributes.filter { $0.key != QueryKey.class }
            changes[QueryKey.valueData] = .data(password)
            do {
                try connection.update(
                    identity(attributes, classCode: attributes[QueryKey.class]!.stringValue!), changes)
            } catch {
                throw SecurityOutput.fail("SecKeychainItemModifyContent", error)
            }
        } catch {
            throw SecurityOutput.fail("\(operation) (\(connection.vault.directory))", error)
        }
    }

    static func find(
        _ attributes: KeychainDictionary, showPassword: Bool, onlyPassword: Bool, keychain: KeychainArgument
    ) throws {
        let connection = try keychain.connect(for: "SecKeychainSearchCopyNext")
        var query = attributes.includingSynchronizable
        query[QueryKey.returnAttributes] = true
        if showPassword || onlyPassword { query[QueryKey.returnData] = true }
        let found: [String: KeychainValue]
        do {
            found = try connection.copyMatching(query)?.dictionaryValue ?? [:]
        } catch {
            throw SecurityOutput.fail("SecKeychainSearchCopyNext", error)
        }
        let secret = found[QueryKey.valueData]?.dataValue ?? Data()
        if onlyPassword {
            print(SecurityOutput.password(secret))
            return
        }
        SecurityOutput.printItem(found, classCode: attributes[QueryKey.class]!.stringValue!, vault: connection.vault)
        if showPassword { FileHandle.standardError.write(Data("password: \(SecurityOutput.buffer(secret))\n".utf8)) }
    }

    static func delete(_ attributes: KeychainDictionary, keychain: KeychainArgument) throws {
        let connection = try keychain.connect(for: "SecKeychainSearchCopyNext")
        var query = attributes.includingSynchronizable
        query[QueryKey.returnAttributes] = true
        query[QueryKey.returnPersistentRef] = true
        do throws(KeychainError) {
            let found: [String: KeychainValue]
            do {
                found = try connection.copyMatching(query)?.dictionaryValue ?? [:]
            } catch let error where error.status == SecStatus.interactionNotAllowed {
                // Locked: the item cannot be shown, but Delete needs no key (docs/spec.md §2), so it goes by the
                // attributes given, as SecItemDelete does.
                try connection.delete(attributes.includingSynchronizable)
                print("password has been deleted.")
                return
            }
            guard let ref = found[QueryKey.valuePersistentRef] else {
                throw KeychainError(SecStatus.itemNotFound, "not found")
            }
            try connection.delete([QueryKey.valuePersistentRef: ref])
            SecurityOutput.printItem(
                found, classCode: attributes[QueryKey.class]!.stringValue!, vault: connection.vault, withVersion: false)
            print("password has been deleted.")
        } catch {
            throw SecurityOutput.fail("SecKeychainSearchCopyNext", error)
        }
    }

    /// The password of an add verb: -w, -X (hex), else a no-echo prompt (or standard input when not a terminal).
    static func password(_ text: String?, hex: String?) throws -> Data {
        if let text { return Data(text.utf8) }
        if let hex {
            // Hex digits only: UInt8(_:radix:) alone would take "+1" as a digit pair.
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0,
                digits.allSatisfy({
                    UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")) ~= ($0 | 0x20)
                })
            else {
                throw ValidationError("-X takes an even number of hex digits (0-9, a-f)")
            }
            return Data(
                stride(from: 0, to: digits.count, by: 2).map {
                    UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)!
                })
        }
        var input = PasscodeInput(fromStdin: isatty(0) == 0)
        return try input.next("password data for new item: ")
    }
}

/// The options of macOS's add- verbs besides the attributes.
struct AddOptions: ParsableArguments {
    @Option(
        name: .customShort("w"),
        help: "The password (visible to other users in /proc: prefer the prompt or standard input).") var password:
        String?
    @Option(name: .customShort("X"), help: "The password as hex.") var hexPassword: String?
    @Flag(name: .customShort("U"), help: "Update the item if it already exists.") var update = false
    @Flag(name: .customShort("A"), help: "Allow any application (accepted; no effect).") var anyApplication = false
    @Option(name: .customShort("T"), help: "Trusted application (accepted; no effect).") var trusted: [String] = []

    func run(_ attributes: KeychainDictionary, keychain: KeychainArgument) throws {
        try PasswordVerbs.add(
            attributes, password: try PasswordVerbs.password(password, hex: hexPassword), update: update,
            keychain: keychain, operation: "SecKeychainItemCreateFromContent")
    }
}

/// The flags of the find verbs.
struct FindOptions: ParsableArguments {
    @Flag(name: .customShort("g"), help: "Show the password (on standard error).") var showPassword = false
    @Flag(name: .customShort("w"), help: "Print only the password.") var onlyPassword = false

    func run(_ attributes: KeychainDictionary, keychain: KeychainArgument) throws {
        try PasswordVerbs.find(attributes, showPassword: showPassword, onlyPassword: onlyPassword, keychain: keychain)
    }
}

struct AddGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password", abstract: "Add a generic password item (macOS security verb).")
    @OptionGroup var attributes: GenericPasswordAttributes
    @OptionGroup var add: AddOptions
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try add.run(try attributes.attributes(), keychain: keychain) }
}

struct FindGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password", abstract: "Find a generic password item (macOS security verb).")
    @OptionGroup var attributes: GenericPasswordAttributes
    @OptionGroup var find: FindOptions
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try find.run(try attributes.attributes(), keychain: keychain) }
}

struct DeleteGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password", abstract: "Delete a generic password item (macOS security verb).")
    @OptionGroup var attributes: GenericPasswordAttributes
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try PasswordVerbs.delete(try attributes.attributes(), keychain: keychain) }
}

struct AddInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-internet-password", abstract: "Add an internet password item (macOS security verb).")
    @OptionGroup var attributes: InternetPasswordAttributes
    @OptionGroup var add: AddOptions
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try add.run(try attributes.attributes(), keychain: keychain) }
}

struct FindInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-internet-password", abstract: "Find an internet password item (macOS security verb).")
    @OptionGroup var attributes: InternetPasswordAttributes
    @OptionGroup var find: FindOptions
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try find.run(try attributes.attributes(), keychain: keychain) }
}

struct DeleteInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-internet-password", abstract: "Delete an internet password item (macOS security verb).")
    @OptionGroup var attributes: InternetPasswordAttributes
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try PasswordVerbs.delete(try attributes.attributes(), keychain: keychain) }
}
