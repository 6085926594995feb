import CoreFoundation
import Foundation
import KeychainFSModel
import X509

/// How long an evaluation may take before it is given up as hung (it takes milliseconds).
let trustEvaluationTimeout: TimeInterval = 60

extension SecTrust {
    /// The last outcome, or a new evaluation's when the settings changed since (or none ran yet).
    func evaluatedOutcome() -> TrustOutcome {
        let settings = settings.withLock { $0 }
        if let outcome = settings.outcome { return outcome }
        var roots = settings.anchors?.map(\.parsed) ?? []
        if !settings.anchorsOnly { roots += SystemRoots.shared.certificates }
        let evaluation = TrustEvaluation(
            leaf: certificates[0].parsed, intermediates: certificates.dropFirst().map(\.parsed), roots: roots,
            verifyDate: settings.verifyDate, serverHostnames: policies.compactMap(\.serverHostname))
        guard let outcome = TrustExecutor.shared.result(within: trustEvaluationTimeout, of: { await evaluation.run() })
        else {
            // Not kept: the next call evaluates again.
            let message = "trust evaluation did not finish within \(Int(trustEvaluationTimeout)) s"
            return TrustOutcome(chain: [], failure: TrustFailure(status: SecStatus.internalError, message: message))
        }
        self.settings.withLock { current in
            if current.generation == settings.generation { current.outcome = outcome }
        }
        return outcome
    }

    /// `certificate` as the SecCertificate the caller gave, else a new one from its DER (a system root).
    func reference(to certificate: Certificate) -> SecCertificate? {
        let given = certificates + (settings.withLock { $0.anchors } ?? [])
        if let match = given.first(where: { $0.parsed == certificate }) { return match.reference }
        return SystemRoots.shared.der[certificate].flatMap { SecCertificateCreateWithData(nil, $0 as CFData) }
    }
}

/// Whether the certificates are trusted under the policies (Apple's `SecTrustEvaluateWithError`). When
/// not, `error` is a CFError in kCFErrorDomainOSStatus with Apple's code and description
/// (docs/swift-api.md, "Certificate trust"). Synchronous: the validation runs on a thread of its own.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    guard let failure = trust.evaluatedOutcome().failure else {
        error?.pointee = nil
        return true
    }
    // Apple's SecTrustCopyError puts the short message under kCFErrorLocalizedDescriptionKey.
    error?.pointee = CFBridge.error(
        failure.status, failure.message, key: CoreFoundation.kCFErrorLocalizedDescriptionKey)
    return false
}

/// The chain the last evaluation built, leaf first, ending at the anchor when it reached one; evaluates
/// first if none ran since the last change (Apple's `SecTrustCopyCertificateChain`).
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    let chain = trust.evaluatedOutcome().chain.compactMap(trust.reference(to:))
    return chain.isEmpty ? nil : NSArray(array: chain)
}
