import Foundation
import KeychainFSModel
import Synchronization
import X509

/// A certificate as the caller gave it, with swift-certificates' parse of it.
typealias TrustCertificate = (reference: SecCertificate, parsed: Certificate)

/// Certificates to evaluate with policies, anchors and a date (Apple's `SecTrust`): what the calls below
/// set and the result of the last evaluation (docs/swift-api.md, "Certificate trust").
public final class SecTrust: Sendable {
    /// The certificates as given, leaf first, each with swift-certificates' parse of it.
    let certificates: [TrustCertificate]
    let policies: [SecPolicy]
    let settings = Mutex(Settings())

    struct Settings: Sendable {
        /// Set by SecTrustSetAnchorCertificates; nil until then.
        var anchors: [TrustCertificate]?
        /// When set, only `anchors` are trusted, not the system's roots.
        var anchorsOnly = false
        /// nil: the time of each evaluation.
        var verifyDate: Date?
        /// The last evaluation's outcome; nil until one ran after the last change of the settings.
        var outcome: TrustOutcome?
        /// Counts the changes, so that an evaluation that overlapped one does not keep its outcome.
        var generation = 0
    }

    init(certificates: [TrustCertificate], policies: [SecPolicy]) {
        self.certificates = certificates
        self.policies = policies
    }

    /// Changes the settings and drops the last result, as every setter does on Apple.
    func update(_ change: (inout Settings) -> Void) {
        settings.withLock {
            change(&$0)
            $0.outcome = nil
            $0.generation += 1
        }
    }
}

/// Certificates in swift-certificates' form, or nil if `value` is not one SecCertificate or an array of them.
private func parsedCertificates(_ value: AnyObject) -> [TrustCertificate]? {
    let items: [Any]
    if let certificate = value as? SecCertificate {
        items = [certificate]
    } else if let array = (value as? NSArray).map({ Array($0) }) ?? (value as? [Any]) {
        items = array
    } else {
        return nil
    }
    var result: [TrustCertificate] = []
    for item in items {
        guard let certificate = item as? SecCertificate,
            let parsed = try? Certificate(derEncoded: Array(certificate.der))
        else { return nil }
        result.append((certificate, parsed))
    }
    return result
}

/// A trust object for `certificates` (one SecCertificate or an array, leaf first) under `policies` (one
/// SecPolicy, an array, or nil for the basic X.509 policy) (Apple's `SecTrustCreateWithCertificates`).
/// errSecParam for no certificate, anything but certificates, or anything but policies.
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    guard let certificates = parsedCertificates(certificates), !certificates.isEmpty else { return errSecParam }
    let policyList: [SecPolicy]
    switch policies {
    case nil: policyList = [SecPolicyCreateBasicX509()]
    case let policy as SecPolicy: policyList = [policy]
    case let array as NSArray:
        let items = array.compactMap { $0 as? SecPolicy }
        guard !items.isEmpty, items.count == array.count else { return errSecParam }
        policyList = items
    case let array as [Any]:
        let items = array.compactMap { $0 as? SecPolicy }
        guard !items.isEmpty, items.count == array.count else { return errSecParam }
        policyList = items
    default: return errSecParam
    }
    trust.pointee = SecTrust(certificates: certificates, policies: policyList)
    return errSecSuccess
}

/// Makes `anchorCertificates` the only trusted roots until SecTrustSetAnchorCertificatesOnly(trust, false)
/// adds the system's back (Apple's `SecTrustSetAnchorCertificates`). errSecParam unless all are certificates.
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray) -> OSStatus {
    guard let anchors = parsedCertificates(anchorCertificates) else { return errSecParam }
    trust.update {
        $0.anchors = anchors
        $0.anchorsOnly = true
    }
    return errSecSuccess
}

/// Whether only the anchors set on `trust` are trusted (true) or the system's roots too (false)
/// (Apple's `SecTrustSetAnchorCertificatesOnly`).
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.update { $0.anchorsOnly = anchorCertificatesOnly }
    return errSecSuccess
}

/// The date the certificates' validity is checked at, instead of the time of evaluation
/// (Apple's `SecTrustSetVerifyDate`).
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.update { $0.verifyDate = verifyDate as Date }
    return errSecSuccess
}
