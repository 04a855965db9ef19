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

    /// A sample.
    public init(
        id: String, key: String? = nil, text: String? = nil, number: Double? = nil, amount: Double? = nil,
        when: Date? = nil,
        moment: Date? = nil, count: Int? = nil, code: String? = nil, price: Decimal? = nil, cost: Decimal? = nil,
        fee: Decimal? = nil
    ) {
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
        ])
}
