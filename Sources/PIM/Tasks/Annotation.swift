// Task annotations, as Taskwarrior keeps them: short dated notes added over a task's life
// (`pim tasks annotate 12 called back, left a message`), shown under it and removed one at a time
// (`denotate`). A task stores them in `annotations`, one per line: the instant it was added in
// iCalendar's basic UTC form, a tab, the text (`20261125T093000Z\tcalled back`); a line with no
// instant before its tab (or no tab: an imported comment) has none. iCalendar carries each as a
// COMMENT, the instant in an X-PIM-ENTRY parameter.
import Foundation
import ObjectGraph

/// One annotation of a task.
public struct Annotation: Sendable, Equatable {
    /// When it was added; nil when not known (a comment another program wrote).
    public var entry: Date?
    /// Its text: one line.
    public var text: String

    public init(entry: Date?, text: String) {
        self.entry = entry
        self.text = Self.oneLine(text)
    }

    /// `text` on one line without tabs (line breaks and tabs as spaces), trimmed.
    static func oneLine(_ text: String) -> String {
        text.map { $0.isNewline || $0 == "\t" ? " " : $0 }.reduce(into: "") { $0.append($1) }
            .trimmingCharacters(in: .whitespaces)
    }

    /// The annotations `stored` keeps, in order.
    public static func list(_ stored: String?) -> [Annotation] {
        guard let stored else { return [] }
        return stored.split(whereSeparator: \.isNewline).compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let entry = parts.count == 2 ? entryDate(String(parts[0])) : nil
            let annotation = Annotation(entry: entry, text: String(parts.count == 2 ? parts[1] : line))
            return annotation.text.isEmpty ? nil : annotation
        }
    }

    /// The text `annotations` are stored as; nil for none.
    public static func stored(_ annotations: [Annotation]) -> String? {
        let lines = annotations.filter { !$0.text.isEmpty }.map(\.line)
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The annotation's stored line.
    var line: String { (entry.map(Self.entryText) ?? "") + "\t" + text }

    /// `20261125T093000Z`: an instant as iCalendar's basic UTC form.
    public static func entryText(_ date: Date) -> String {
        OutputFormat.string(from: date, format: "yyyyMMdd'T'HHmmss'Z'", timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// The instant `text` writes in iCalendar's basic UTC form, or nil.
    public static func entryDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count == 16, trimmed.hasSuffix("Z") else { return nil }
        return OutputFormat.date(from: trimmed, format: "yyyyMMdd'T'HHmmss'Z'", timeZone: TimeZone(secondsFromGMT: 0)!)
    }

    /// `2026-11-25 10:30 called back` in `timeZone` (the text alone without an entry).
    public func text(timeZone: TimeZone) -> String {
        (entry.map { OutputFormat.local($0, timeZone: timeZone) + " " } ?? "") + text
    }
}

extension PIMStore {
    /// Adds an annotation to `task`, dated now; the annotation.
    public func annotate(_ task: TaskItem, with text: String) throws(PIMError) -> Annotation {
        let annotation = Annotation(entry: now, text: text)
        guard !annotation.text.isEmpty else { throw PIMError.usage("an annotation needs text") }
        task.annotations = Annotation.stored(Annotation.list(task.annotations) + [annotation])
        return annotation
    }

    /// Removes one annotation of `task`, the one `text` names: the annotation with that text
    /// (ignoring case), else the only one containing it; the latest without `text`. Throws
    /// `noMatch` when no annotation matches (or the task has none), `ambiguous` when several do.
    public func denotate(_ task: TaskItem, matching text: String?) throws(PIMError) -> Annotation {
        var annotations = Annotation.list(task.annotations)
        let name = "task \(task.number) (\(task.title ?? ""))"
        guard !annotations.isEmpty else { throw PIMError.noMatch("\(name) has no annotations") }
        let index: Int
        if let text = text.map(Annotation.oneLine), !text.isEmpty {
            if let exact = annotations.lastIndex(where: { $0.text.caseInsensitiveCompare(text) == .orderedSame }) {
                index = exact
            } else {
                let containing = annotations.indices.filter { annotations[$0].text.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
                guard let first = containing.first else { throw PIMError.noMatch("no annotation of \(name) contains \"\(text)\"") }
                guard containing.count == 1 else {
                    throw PIMError.ambiguousText("\"\(text)\" is in \(containing.count) annotations of \(name):\n"
                                                       + containing.map { "  " + annotations[$0].text(timeZone: timeZone) }.joined(separator: "\n"))
                }
                index = first
            }
        } else {
            index = annotations.count - 1
        }
        let removed = annotations.remove(at: index)
        task.annotations = Annotation.stored(annotations)
        return removed
    }
}
