import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// A verb that acts on the device lock of a served vault (macOS locks a keychain file; here the vault's
/// daemon holds the lock state).
private func deviceCommand<Call: ControlCall>(_ keychain: KeychainArgument, _ operation: String, _ call: Call) throws {
    let vault = keychain.keychain.first.map { Vault(directory: $0) } ?? ClientEnvironment.defaultVault()
    do { _ = try ControlClient(vault: vault).call(call) } catch {
        throw SecurityOutput.fail(operation, error)
    }
}

struct LockKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock-keychain", abstract: "Lock the device of a served vault (macOS security verb).")
    @Flag(name: .customShort("a"), help: "Lock all keychains (here: the one named, or the default).") var all = false
    @OptionGroup var keychain: KeychainArgument

    func run() throws { try deviceCommand(keychain, "SecKeychainLock", DeviceLock()) }
}

struct UnlockKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain", abstract: "Unlock the device of a served vault (macOS security verb).",
        discussion:
            "The passcode is read from a no-echo prompt, or from standard input when it is not a terminal; never from argv (-p is refused)."
    )
    @Option(name: .customShort("p"), help: "Refused: a password in argv is visible to every user (use standard input).")
    var password: String?
    @Flag(name: .customShort("u"), help: "Read the password from the prompt (the default).") var prompt = false
    @OptionGroup var keychain: KeychainArgument

    func validate() throws {
        if password != nil {
            throw ValidationError("-p would put the passcode in argv; pipe it on standard input instead")
        }
    }

    func run() throws {
        var input = PasscodeInput(fromStdin: isatty(0) == 0)
        let passcode = try input.next("password to unlock \(keychain.keychain.first ?? "default"): ")
        try deviceCommand(keychain, "SecKeychainUnlock", DeviceUnlock(passcode: passcode))
    }
}

struct DumpKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump-keychain", abstract: "Print every password item (macOS security verb).")
    @Flag(name: .customShort("d"), help: "Also print each item's data (its secret).") var data = false
    @Flag(name: .customShort("a"), help: "Accepted for macOS compatibility (access lists: none here).")
    var accessLists = false
    @Flag(name: .customShort("i"), help: "Accepted for macOS compatibility (interactive: no effect).") var interactive =
        false
    @Flag(name: .customShort("r"), help: "Accepted for macOS compatibility (raw data: no effect).") var raw = false
    @OptionGroup var keychain: KeychainArgument

    func run() throws {
        let connection = try keychain.connect(for: "SecKeychainSearchCopyNext")
        for classCode in [Schema.internetPassword.code, Schema.genericPassword.code] {
            var query: KeychainDictionary = [
                QueryKey.class: .string(classCode), QueryKey.returnAttributes: true,
                QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
            ]
            .includingSynchronizable
            if data { query[QueryKey.returnData] = true }
            let items: [KeychainValue]
            do { items = try connection.copyMatching(query)?.arrayValue ?? [] } catch
                where error.status == SecStatus.itemNotFound
            {
                continue
            } catch {
                throw SecurityOutput.fail("SecKeychainSearchCopyNext", error)
            }
            for item in items.compactMap(\.dictionaryValue) {
                SecurityOutput.printItem(item, classCode: classCode, vault: connection.vault)
                if data {
                    print("data:")
                    print(
                        SecurityOutput.format(
                            item[QueryKey.valueData].map { .data($0.dataValue ?? Data()) } ?? nil, type: "blob"))
                }
            }
        }
    }
}
