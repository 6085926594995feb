import ArgumentParser
import Foundation
import KeychainFSClient
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import KeychainFSFuse
import KeychainFSSecretReferences

/// Resolves `kc://` references through a vault's daemon (so its lock applies) or in-process.
struct ReferenceResolver {
    let connection: KeychainConnection

    /// The secret or attribute a reference names. A failure names the reference, never a value.
    func bytes(_ reference: SecretReference) throws(ReferenceFailure) -> Data {
        let defaultGroup = connection.caller.defaultAccessGroup ?? ""
        guard
            var query = MountNames.itemQuery(
                classCode: reference.classCode, groupName: reference.groupName,
                itemName: reference.itemName, defaultGroup: defaultGroup)
        else {
            throw ReferenceFailure(
                reference,
                KeychainError(SecStatus.param, "the names are not as the mount writes them (see ls of the mount)"))
        }
        if let attribute = reference.attribute,
            !MountNames.hasAttribute(named: attribute, classCode: reference.classCode)
        {
            throw ReferenceFailure(
                reference,
                KeychainError(SecStatus.noSuchAttr, "class \(reference.classCode) has no attribute \(attribute)"))
        }
        query[reference.attribute == nil ? QueryKey.returnData : QueryKey.returnAttributes] = true
        let found: KeychainValue?
        do { found = try connection.copyMatching(query) } catch { throw ReferenceFailure(reference, error) }
        if let attribute = reference.attribute {
            guard
                let bytes = MountNames.attributeBytes(
                    found?.dictionaryValue ?? [:], named: attribute, classCode: reference.classCode)
            else {
                throw ReferenceFailure(reference, KeychainError(SecStatus.noSuchAttr, "the item has no \(attribute)"))
            }
            return bytes
        }
        guard let data = found?.dataValue else {
            throw ReferenceFailure(reference, KeychainError(SecStatus.itemNotFound, "the item has no value"))
        }
        return data
    }
}

/// A reference that could not be resolved: the reference, the keychain's error, and the exit status.
struct ReferenceFailure: Error, CustomStringConvertible {
    let reference: SecretReference
    let error: KeychainError

    init(_ reference: SecretReference, _ error: KeychainError) {
        self.reference = reference
        self.error = error
    }

    /// `kc://…: Permission denied errSecInteractionNotAllowed: …`: the errno's message first, as a
    /// read through the mount would fail, then the keychain's reason.
    var description: String { "\(reference): \(FSError(error))" }

    /// The OSStatus's low byte, as the `security` verbs exit: 44 not found, 36 locked (docs/workflows.md).
    var exitCode: ExitCode { ExitCode(Int32(UInt8(truncatingIfNeeded: error.status))) }
}

/// The vault `run` and `inject` use: `--vault` / `--mount`, else `$KEYCHAIN_VAULT` (or `$KEYCHAIN_MOUNT`),
/// else the default vault, with the caller's access groups from `$KEYCHAIN_ACCESS_GROUPS`.
struct WorkflowVault: ParsableArguments {
    @OptionGroup var address: DaemonAddress

    func resolver() throws -> ReferenceResolver {
        let environment = ProcessInfo.processInfo.environment
        let explicit =
            address.vault != nil || address.mount != nil || environment["KEYCHAIN_VAULT"] != nil
            || environment["KEYCHAIN_MOUNT"] != nil
        let vault = explicit ? try address.resolveVault() : ClientEnvironment.defaultVault()
        do {
            return ReferenceResolver(
                connection: try KeychainConnection(vault: vault, caller: ClientEnvironment.caller()))
        } catch {
            throw CLIError("cannot open the vault \(vault.directory): \(error.message)")
        }
    }
}

/// Prints `keychainfs VERB: message` on standard error and exits with `code`.
func failWorkflow(_ verb: String, _ message: String, code: ExitCode) -> ExitCode {
    FileHandle.standardError.write(Data("keychainfs \(verb): \(message)\n".utf8))
    return code
}
