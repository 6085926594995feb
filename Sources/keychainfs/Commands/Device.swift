import KeychainFSControlChannel
import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSodium

struct Device: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Drive the device-lock simulator of a running daemon.",
        discussion: "Each command returns once the new state is in force: the next read after 'lock' fails.",
        subcommands: [
            DeviceStatusCommand.self, Lock.self, Unlock.self, Reboot.self, Passcode.self, AutoLock.self,
            BootUnlock.self, Biometry.self, Prompt.self, Prompts.self,
        ])

    struct DeviceStatusCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "State, passcode, failed attempts, auto-lock.")
        @OptionGroup var address: DaemonAddress
        func run() throws { DeviceStatusPrinter.print(try address.call(DeviceStatusCall())) }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock", abstract: "Lock: WhenUnlocked items become unavailable (EACCES).")
        @OptionGroup var address: DaemonAddress
        func run() throws {
            let status = try LockThatLands.lock(try address.resolveVault())
            if status.state == DeviceState.noPasscode.rawValue {
                print("no passcode is set: the device stays unlocked (as on iOS)")
            }
        }
    }

    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unlock", abstract: "Unlock with the passcode.")
        @OptionGroup var address: DaemonAddress
        @Flag(help: "Read the passcode from standard input instead of prompting.") var passcodeStdin = false
        @Flag(
            help:
                "Unlock with the enrolled face (needs a passcode unlock since the last reboot, enrolment change or lockout, within 48 h; docs/face-id.md)."
        ) var biometry = false
        @Flag(help: "With --biometry: present a face that does not match (counts toward the lockout after 5).")
        var noMatch = false
        @Flag(help: "Unlock from the boot unlock's seal, when the TPM releases it (device boot-unlock; docs/tpm.md).")
        var tpm = false
        func run() throws {
            if noMatch && !biometry { throw ValidationError("--no-match goes with --biometry") }
            if tpm && (biometry || passcodeStdin) {
                throw ValidationError("--tpm unlocks without a passcode or a face")
            }
            if tpm { _ = try address.call(DeviceUnlockWithTPM()); return }
            if biometry { _ = try address.call(UnlockWithBiometry(match: !noMatch)); return }
            var input = PasscodeInput(fromStdin: passcodeStdin)
            var passcode = try input.next("Passcode: ")
            defer { Sodium.wipe(&passcode) }
            _ = try address.call(DeviceUnlock(passcode: passcode))
        }
    }

    struct Reboot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reboot",
            abstract: "Reboot: AfterFirstUnlock items too become unavailable until the next unlock.")
        @OptionGroup var address: DaemonAddress
        func run() throws { _ = try address.call(DeviceReboot()) }
    }

    struct AutoLock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "auto-lock", abstract: "Lock automatically SECONDS after each unlock, or 'off'.")
        @OptionGroup var address: DaemonAddress
        @Argument(help: "Seconds, or 'off'.") var seconds: String
        func run() throws {
            if seconds == "off" { _ = try address.call(AutoLockCall(seconds: nil)); return }
            guard let n = Int64(seconds), n > 0 else {
                throw ValidationError("expected a positive number of seconds or 'off'")
            }
            _ = try address.call(AutoLockCall(seconds: Int(n)))
        }
    }

    /// `device boot-unlock enable|disable` (docs/tpm.md, "Boot unlock").
    struct BootUnlock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "boot-unlock",
            abstract: "Let 'mount --tpm-unlock' make the first unlock after a boot, when the TPM releases it.",
            subcommands: [Enable.self, Disable.self])

        struct Enable: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "enable",
                abstract:
                    "Seal what the first unlock needs to the TPM, under a policy of boot-state PCRs (the passcode is asked once)."
            )
            @OptionGroup var address: DaemonAddress
            @Option(
                help: ArgumentHelp(
                    "The SHA-256 PCRs whose values now a boot must have again (default: 7, as systemd-cryptenroll).",
                    valueName: "pcrs"))
            var tpmPcrs: PCRSelection = BootUnlockSeal.defaultPCRs
            @Flag(help: "Read the passcode from standard input.") var passcodeStdin = false
            func run() throws {
                var input = PasscodeInput(fromStdin: passcodeStdin)
                var passcode = try input.next("Passcode: ")
                defer { Sodium.wipe(&passcode) }
                _ = try address.call(BootUnlockEnable(passcode: passcode, pcrs: tpmPcrs))
                print(
                    "boot unlock sealed to PCRs \(tpmPcrs): 'keychainfs mount VAULT MOUNT --tpm-unlock' unlocks while they hold"
                )
            }
        }

        struct Disable: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "disable", abstract: "Forget the sealed first unlock: the passcode is needed again.")
            @OptionGroup var address: DaemonAddress
            func run() throws { _ = try address.call(BootUnlockDisable()) }
        }
    }

    struct Passcode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passcode", abstract: "Set, change or remove the device passcode.",
            subcommands: [Set.self, Change.self, Remove.self])

        struct Set: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Set the first passcode (standard input: one line).")
            @OptionGroup var address: DaemonAddress
            @Flag(help: "Read the passcode from standard input.") var passcodeStdin = false
            func run() throws {
                var input = PasscodeInput(fromStdin: passcodeStdin)
                var passcode = try input.newPasscode()
                defer { Sodium.wipe(&passcode) }
                _ = try address.call(PasscodeSet(passcode: passcode))
            }
        }

        struct Change: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "change", abstract: "Change the passcode (standard input: old, then new, one per line).")
            @OptionGroup var address: DaemonAddress
            @Flag(help: "Read the passcodes from standard input.") var passcodeStdin = false
            func run() throws {
                var input = PasscodeInput(fromStdin: passcodeStdin)
                var old = try input.next("Current passcode: ")
                defer { Sodium.wipe(&old) }
                var new = try input.newPasscode()
                defer { Sodium.wipe(&new) }
                _ = try address.call(PasscodeChange(old: old, new: new))
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Remove the passcode: every WhenPasscodeSetThisDeviceOnly item is deleted, as on iOS.")
            @OptionGroup var address: DaemonAddress
            @Flag(help: "Read the passcode from standard input.") var passcodeStdin = false
            func run() throws {
                var input = PasscodeInput(fromStdin: passcodeStdin)
                var passcode = try input.next("Current passcode: ")
                defer { Sodium.wipe(&passcode) }
                let deleted = try address.call(PasscodeRemove(passcode: passcode))
                print("passcode removed; \(deleted) WhenPasscodeSet item(s) deleted")
            }
        }
    }
}
