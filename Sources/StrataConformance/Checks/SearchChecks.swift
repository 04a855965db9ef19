import Foundation
import Strata

/// Full-text search (``NotesDomain``): words cut and folded as the engine folds, text without
/// spaces, prefixes, phrases and boolean forms, relevance on a fixed corpus, searches combined
/// with filters and pages, and the index kept by every write path.
enum SearchChecks {
    /// The IDs a search finds, most relevant first.
    static func ranked(_ store: Store, _ text: String, limit: Int? = nil) async throws -> [String] {
        var query = Query<Note>.where(.search(text, in: "text")).sorted(byRelevanceOf: "text")
        if let limit { query = query.limit(limit) }
        return try await store.repository(Note.self).fetch(query).map(\.id)
    }

    /// The IDs a search finds, in ID order.
    static func found(_ store: Store, _ text: String) async throws -> [String] {
        try await store.repository(Note.self).fetch(Query<Note>.where(.search(text, in: "text")).sorted(by: \.id))
            .map(\.id)
    }

    /// The relevance corpus: title words weigh 2, body words 1. For `swift`: a's one title word
    /// in a short text beats b's and d's three occurrences in longer ones; b and d tie exactly
    /// (same counts, same length) and are ordered by ID.
    static let corpus = [
        Note(id: "a", title: "Swift", body: "A language"),
        Note(id: "b", title: "Notes", body: "Swift swift swift on the server"),
        Note(id: "c", title: "Rust", body: "Nothing about it"),
        Note(id: "d", title: "Swift server", body: "Swift on Linux today"),
    ]

    static let all: [ConformanceCheck] = [
        ConformanceCheck(.search, "wordsAreCutAndFoldedAsTheEngineFolds") { c in
            let store = try await c.store(try NotesDomain.schema())
            try await store.repository(Note.self).insert(contentsOf: [
                Note(id: "1", title: "Crème Brûlée", body: "Dessert"),
                Note(id: "2", title: "Send an e-mail", body: "to ÅSA at 10:30"),
                Note(id: "3", title: "Straße", body: "naïve café"),
            ])
            try expectEqual(try await found(store, "creme"), ["1"], "diacritics folded")
            try expectEqual(try await found(store, "CRÈME brulee"), ["1"], "case and diacritics, both words")
            try expectEqual(try await found(store, "mail"), ["2"], "punctuation separates words")
            try expectEqual(try await found(store, "email"), [], "so e-mail is two words")
            try expectEqual(try await found(store, "\"e mail\""), ["2"], "which follow each other")
            try expectEqual(try await found(store, "asa 30"), ["2"], "folded, and numbers are words")
            try expectEqual(try await found(store, "strasse"), ["3"], "ß folds as the engine folds it")
            try expectEqual(try await found(store, "naive cafe"), ["3"])
            try expectEqual(try await found(store, "!!!"), [], "a search with no word matches nothing")
        },
        ConformanceCheck(.search, "textWithoutSpacesIsFoundByCharactersAndPhrases") { c in
            let store = try await c.store(try NotesDomain.schema())
            try await store.repository(Note.self).insert(contentsOf: [
                Note(id: "ja", title: "東京都に住む"), Note(id: "zh", title: "我爱北京天安门"),
                Note(id: "ko", title: "서울 특별시"), Note(id: "mixed", title: "Swift在北京"),
            ])
            try expectEqual(try await found(store, "東京"), ["ja"], "two characters: one pair")
            try expectEqual(try await found(store, "東京都"), ["ja"], "three: two pairs in a row")
            try expectEqual(try await found(store, "都東"), [], "pairs the text does not hold")
            try expectEqual(try await found(store, "住"), ["ja"], "one character, inside the text")
            try expectEqual(try await found(store, "む"), ["ja"], "one character, the text's last")
            try expectEqual(try await found(store, "北京"), ["mixed", "zh"], "between other scripts' words")
            try expectEqual(try await found(store, "天安门"), ["zh"])
            try expectEqual(try await found(store, "서울"), ["ko"], "Hangul")
            try expectEqual(try await found(store, "swift"), ["mixed"], "a Latin word before Han")
            try expectEqual(try await found(store, "大阪"), [])
        },
        ConformanceCheck(.search, "prefixesPhrasesAndBooleanForms") { c in
            let store = try await c.store(try NotesDomain.schema())
            try await store.repository(Note.self).insert(contentsOf: corpus)
            try expectEqual(try await found(store, "serv*"), ["b", "d"], "a prefix")
            try expectEqual(try await found(store, "\"swift server\""), ["d"], "a phrase, in order")
            try expectEqual(try await found(store, "\"server swift\""), [], "not in the other order")
            try expectEqual(try await found(store, "\"swift on\""), ["b", "d"], "a phrase in the body")
            try expectEqual(try await found(store, "\"server swift on\""), [], "never across attributes")
            try expectEqual(try await found(store, "\"swift ser\"*"), ["d"], "a phrase ending in a prefix")
            try expectEqual(try await found(store, "swift server"), ["b", "d"], "words: all of them")
            try expectEqual(try await found(store, "swift AND linux"), ["d"])
            try expectEqual(try await found(store, "rust OR linux"), ["c", "d"], "either")
            try expectEqual(try await found(store, "swift -server"), ["a"], "without")
            try expectEqual(try await found(store, "swift NOT linux"), ["a", "b"])
            try expectEqual(try await found(store, "(rust OR language) -nothing"), ["a"], "grouped")
            try expectEqual(try await found(store, "SWIFT or"), [], "or in lower case is a word")
            for bad in ["\"open", "(swift", "swift OR", "-swift", "NOT swift", "swift OR -rust"] {
                _ = try await expectError(.invalidQuery) { _ = try await found(store, bad) }
            }
            let built = Query<Note>.where(.search(.all([.word("swift"), .not(.prefix("lin"))]), in: "text"))
            try expectEqual(
                try await store.repository(Note.self).fetch(built.sorted(by: \.id)).map(\.id), ["a", "b"],
                "a query built from cases")
            _ = try await expectError(.invalidQuery, entity: "Note") {
                _ = try await store.repository(Note.self).fetch(Query<Note>.where(.search("swift", in: "nope")))
            }
        },
        ConformanceCheck(.search, "relevanceOrdersAFixedCorpusWithTiesByID") { c in
            let store = try await c.store(try NotesDomain.schema())
            try await store.repository(Note.self).insert(contentsOf: corpus)
            try expectEqual(try await ranked(store, "swift"), ["a", "b", "d"], "weight and length, then ID")
            try expectEqual(try await ranked(store, "swift server"), ["d", "b"], "a title word outweighs a body word")
            try expectEqual(try await ranked(store, "swift OR rust"), ["c", "a", "b", "d"], "a rarer word weighs more")
            try expectEqual(try await ranked(store, "swift", limit: 2), ["a", "b"], "a limit takes the top")
            let least = try await store.repository(Note.self).fetch(
                Query<Note>.where(.search("swift", in: "text")).sorted(byRelevanceOf: "text", .descending))
            try expectEqual(least.map(\.id), ["d", "b", "a"], "least relevant first")
            _ = try await expectError(.invalidQuery, entity: "Note") {
                _ = try await store.repository(Note.self).fetch(Query<Note>.all.sorted(byRelevanceOf: "text"))
            }
        },
        ConformanceCheck(.search, "aSearchCombinesWithFiltersCountsAndPages") { c in
            let store = try await c.store(try NotesDomain.schema())
            let notes = store.repository(Note.self)
            var tagged = corpus
            tagged[1].tag = "x"
            tagged[3].tag = "x"
            try await notes.insert(contentsOf: tagged)
            let swift = Filter<Note>.search("swift", in: "text")
            try expectEqual(
                try await notes.fetch(Query.where(swift && \.tag == "x").sorted(byRelevanceOf: "text")).map(\.id),
                ["b", "d"], "and a filter")
            try expectEqual(
                try await notes.fetch(Query.where(swift || \.id == "c").sorted(by: \.id)).map(\.id),
                ["a", "b", "c", "d"], "or a filter")
            try expectEqual(
                try await notes.fetch(Query.where(!swift).sorted(by: \.id)).map(\.id), ["c"], "not a search")
            try expectEqual(try await notes.count(where: swift), 3, "counted")
            try expectEqual(try await notes.count(where: swift && \.tag == "x"), 2)
            let second = try await notes.fetch(
                Query.where(swift).sorted(byRelevanceOf: "text").limit(1).offset(1))
            try expectEqual(second.map(\.id), ["b"], "an offset page of the ranking")
            let byTitle = try await notes.fetch(Query.where(swift).sorted(by: \.title).limit(2))
            try expectEqual(byTitle.map(\.id), ["b", "a"], "sorted by another key")
            let book = Notebook(id: "n", name: "Swift things")
            try await store.repository(Notebook.self).insert(book)
            try await notes.update(Note(id: "c", title: "Rust", body: "Nothing about it", notebook: "n"))
            let inBooks = try await store.repository(Notebook.self).fetch(
                Query.where(.any(Notebook.notes, where: .search("rust", in: "text"))))
            try expectEqual(inBooks.map(\.id), ["n"], "a search of a related entity")
        },
        ConformanceCheck(.search, "theIndexFollowsEveryWritePath") { c in
            let store = try await c.store(try NotesDomain.schema())
            let notes = store.repository(Note.self)
            try await store.repository(Notebook.self).insert(Notebook(id: "n", name: "Work"))
            try await notes.insert(Note(id: "1", title: "alpha", notebook: "n"))
            try await notes.insert(contentsOf: [
                Note(id: "2", title: "beta", notebook: "n"), Note(id: "3", title: "gamma"),
            ])
            try expectEqual(try await found(store, "alpha OR beta OR gamma"), ["1", "2", "3"], "inserts")
            try await notes.update(Note(id: "3", title: "delta"))
            try expectEqual(try await found(store, "gamma"), [], "an update drops the old words")
            try expectEqual(try await found(store, "delta"), ["3"], "and adds the new")
            try await notes.upsert(Note(id: "4", title: "epsilon"))
            try await store.transaction { tx in
                try tx.update("Note", id: .string("4"), set: ["body": .string("zeta")])
            }
            try expectEqual(try await found(store, "epsilon zeta"), ["4"], "an upsert and a patch")
            let context = store.makeContext()
            try await context.insert(Note(id: "5", title: "eta"))
            try await context.save()
            try expectEqual(try await found(store, "eta"), ["5"], "a context's save")
            try await notes.delete("5")
            try expectEqual(try await found(store, "eta"), [], "a delete")
            try expectEqual(try await notes.delete(where: \.title == "delta"), 1)
            try expectEqual(try await found(store, "delta"), [], "a batch delete")
            try await store.repository(Notebook.self).delete("n")
            try expectEqual(try await found(store, "alpha OR beta"), [], "a cascade")
            try expectEqual(try await found(store, "epsilon"), ["4"], "and the rest stays")
            let before = try await StoreSnapshot.take(store)
            _ = try await expectError(.duplicateID) {
                try await store.transaction { tx in
                    try tx.insert(Note(id: "6", title: "theta"))
                    try tx.insert(Note(id: "4", title: "again"))
                }
            }
            try expectEqual(try await StoreSnapshot.take(store), before, "a failed save writes nothing")
            try expectEqual(try await found(store, "theta OR again"), [], "not even to the index")
        },
    ]
}
