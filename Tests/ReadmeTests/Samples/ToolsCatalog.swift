// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// A DocC catalog's code sample, verbatim (ReadmeSampleTests checks every ```swift block of the
// catalogs it names appears in one of these files). Edit both together.
import Strata
import StrataTools

func copyAndProve(from source: Store, to target: Store) async throws -> Bool {
    let outcome = try await StoreCopier(from: source, to: target, history: true).run()
    return outcome.isEqual  // the digests of source and copy, taken by the copier, are equal
}
