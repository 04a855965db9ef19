import StrataStorage

extension Filter {
    /// A full-text search of the entity's index `index`, in the search-box syntax of
    /// `SearchQuery`: `.search("swift -rust", in: "text")`. A malformed search is
    /// `StrataError.Code.invalidQuery` when the query runs.
    public static func search(_ text: String, in index: String) -> Filter {
        do {
            return Filter(.search(index: index, try SearchQuery(parsing: text)))
        } catch {
            let failure = error as? StrataError ?? StrataError(.invalidQuery, "search \"\(text)\": \(error)")
            return Filter(.constant(false), failure: failure)
        }
    }

    /// A full-text search of the entity's index `index`, built from cases:
    /// `.search(.all([.word("swift"), .prefix("serv")]), in: "text")`.
    public static func search(_ query: SearchQuery, in index: String) -> Filter {
        Filter(.search(index: index, query))
    }
}

extension Query {
    /// Adds a sort key after the existing ones: relevance to the filter's search of `index`, the
    /// most relevant first (`SearchScoring`; ties by ID), the least relevant first with
    /// `.descending`. The filter must search `index`; with a limit, only as many records as the
    /// page needs are read.
    ///
    /// ```swift
    /// Query<Note>.where(.search("swift server", in: "text")).sorted(byRelevanceOf: "text").limit(20)
    /// ```
    public func sorted(byRelevanceOf index: String, _ order: SortDirection = .ascending) -> Query {
        var copy = self
        copy.sort.append(SortKey(relevanceOf: index, ascending: order == .ascending))
        return copy
    }
}
