import Foundation
import KeychainFSEngine
import KeychainFSModel

/// org.freedesktop.Secret.Prompt: an Unlock's prompt is the device's authentication prompt, raised in the
/// engine's queue and answered like any other (`keychainfs device prompt passcode`, `prompt auto`, the
/// test kit); its Completed signal carries the outcome.
extension ServiceObjects {
    func promptMethod(_ call: BusCall, _ id: UInt64, _ caller: Caller) throws(BusError) -> [BusValue] {
        let prompt = try prompts.prompt(id, caller: call.sender)
        switch call.member {
        case "Prompt":
            _ = try CallArguments(call, signature: "s")
            guard !prompts.isRaised(id) else { throw .failed("this prompt is already shown") }
            if keychain.isAvailable(.whenUnlocked) {
                complete(id, dismissed: false)
                return []
            }
            // The prompt names the peer process (`device prompts` shows it), as the mount's prompts name theirs.
            let kind: PromptKind = keychain.biometryStatus().enrolled ? .biometryOrPasscode : .passcode
            let raised = keychain.prompts.raise(
                kind: kind, reason: "unlock the keychain for \(caller.executable ?? "a client") (Secret Service)",
                caller: caller, item: nil
            ) { [self] answer in
                complete(id, dismissed: !unlock(with: answer))
            }
            // An answer may have come already (prompt auto, a queued answer) and finished the prompt: nothing to keep.
            if !prompts.markRaised(id, as: raised) { keychain.prompts.cancel(raised) }
            return []
        case "Dismiss":
            _ = try CallArguments(call, signature: "")
            if let raised = prompt.raised { keychain.prompts.cancel(raised) } else { complete(id, dismissed: true) }
            return []
        default:
            throw .unknownMethod("no method \(call.member) of \(Self.promptInterface)")
        }
    }

    /// Unlocks the device with a prompt's answer; false when it was refused, cancelled or timed out.
    private func unlock(with answer: PromptAnswer) -> Bool {
        switch answer {
        case .passcode(let passcode):
            (try? keychain.unlockDevice(passcode: passcode)) != nil && keychain.isAvailable(.whenUnlocked)
        case .match: (try? keychain.unlockWithBiometry(match: true)) != nil
        case .noMatch: (try? keychain.unlockWithBiometry(match: false)) != nil
        // accept: a matching face where one will do; the daemon does not know the passcode to type for it.
        case .accept: (try? keychain.unlockWithBiometry(match: true)) != nil
        case .cancel, .timeout: false
        }
    }

    /// Ends prompt `id` with its Completed signal (once: a second completion finds it gone).
    private func complete(_ id: UInt64, dismissed: Bool) {
        guard let prompt = prompts.finish(id) else { return }
        link.emit(
            BusSignal(
                path: ObjectPath.promptPath(id), interface: Self.promptInterface, member: "Completed",
                arguments: [.bool(dismissed), .variant(.paths(dismissed ? [] : prompt.objects))]))
    }
}
