import Foundation
import Strata

/// Values of every kind, each once indexed and once plain, for the value rules (text
/// normalisation and order, non-finite numbers, exact dates, long text, exact decimals) and the
/// differential runs.
public struct Sample: PersistentModel, Equatable {
    public var id: String
    /// Indexed text.
    public var key: String?
    /// Plain text.
    public var text: String?
    /// An indexed double.
    public var number: Double?
    /// A plain double.
    public var amount: Double?
    /// An indexed date.
    public var when: Date?
    /// A plain date.
    public var moment: Date?
    /// An indexed integer.
    public var count: Int?
    /// A unique text.
    public var code: String?
    /// An indexed decimal.
    public var price: Decimal?
    /// A plain decimal.
    public var cost: Decimal?
    /// A unique decimal.
    public var fee: Decimal?
    /// An indexed array of text (an index of its elements).
    public var tags: [String]?
    /// A plain array of doubles.
    public var scores: [Double]?
    /// A plain set of text.
    public var labels: Set<String>?
    /// A dictionary from text to integers.
    public var counts: [String: Int]?
    /// A document.
    public var profile: SampleProfile?

    /// A sample.
    public init(
        id: String, key: String? = nil, text: String? = nil, number: Double? = nil, amount: Double? = nil,
        when: Date? = nil,
        moment: Date? = nil, count: Int? = nil, code: String? = nil, price: Decimal? = nil, cost: Decimal? = nil,
        fee: Decimal? = nil, tags: [String]? = nil, scores: [Double]? = nil, labels: Set<String>? = nil,
        counts: [String: Int]? = nil, profile: SampleProfile? = nil
    ) {
        self.tags = tags
        self.scores = scores
        self.labels = labels
        self.counts = counts
        self.profile = profile
        self.id = id
        self.key = key
        self.text = text
        self.number = number
        self.amount = amount
        self.when = when
        self.moment = moment
        self.count = count
        self.code = code
        self.price = price
        self.cost = cost
        self.fee = fee
    }

    public static let entity = Entity<Sample>(
        "Sample",
        [
            .attribute(\.key, indexed: true),
            .attribute(\.text),
            .attribute(\.number, indexed: true),
            .attribute(\.amount),
            .attribute(\.when, indexed: true),
            .attribute(\.moment),
            .attribute(\.count, indexed: true),
            .attribute(\.code, unique: true),
            .attribute(\.price, indexed: true),
            .attribute(\.cost),
            .attribute(\.fee, unique: true),
            .attribute(\.tags, indexed: true),
            .attribute(\.scores),
            .attribute(\.labels),
            .attribute(\.counts),
            .attribute(\.profile),
        ])
}

/// A small `Codable` value stored as one document attribute of ``Sample``.
public struct SampleProfile: DocumentAttribute, Equatable {
    /// A city.
    public var city: String?
    /// A floor.
    public var floor: Int?
    /// A nested object.
    public var contact: Contact?

    /// A nested part of the document.
    public struct Contact: Codable, Sendable, Equatable {
        /// An email address.
        public var email: String?
        /// Whether it is verified.
        public var verified: Bool?

        /// A contact.
        public init(email: String? = nil, verified: Bool? = nil) {
            self.email = email
            self.verified = verified
        }
    }

    /// A profile.
    public init(city: String? = nil, floor: Int? = nil, contact: Contact? = nil) {
        self.city = city
        self.floor = floor
        self.contact = contact
    }
}
