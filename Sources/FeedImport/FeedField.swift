// One value a mapping reads from a record: where it is (an XPath, or a property of the record's
// iCalendar/vCard payload), how its text is read (type, table, default), and alternatives tried
// in order when a feed may carry the value in more than one place.
import Foundation

/// How a field's text is read.
public enum FeedValueType: String, Sendable, CaseIterable {
    /// Text with surrounding white space trimmed; empty text is no value (the default).
    case text
    /// Text as it is, white space kept (bodies, notes).
    case string
    /// HTML reduced to its text: tags dropped, entities decoded, white space collapsed.
    case html
    /// A whole number.
    case int
    /// A number.
    case number
    /// `true`/`false`, `1`/`0`, `yes`/`no`.
    case bool
    /// An instant: ISO 8601 (extended or basic, with `Z`, an offset, or floating in the field's
    /// zone), RFC 822 (`Tue, 10 Jun 2003 04:00:00 GMT`), or a date alone (its midnight).
    case datetime
    /// A day: a date, or the day an instant falls on in the field's zone; its midnight in the
    /// import's time zone.
    case date
    /// Whether the value is a date without a time of day (all-day events): a boolean.
    case isdate
    /// An ISO 8601 / RFC 5545 duration (`PT30M`, `P1D`) added to the attribute named by `after`.
    case duration
    /// A list of instants and days (iCalendar's EXDATE, each property in its own TZID), as
    /// iCalendar's basic UTC form, comma-separated: `20240617T070000Z,20240624`.
    case datelist
    /// A list of iCalendar TRIGGER values (each VALARM's), comma-separated, each once, in order:
    /// durations in one form (`-PT15M`, `PT0S`, `-P1W`, `-P1DT2H`; `-PT900S` is `-PT15M`), dates
    /// and times as UTC (`20261201T080000Z`; a TZID's or a floating time converted as `datetime`
    /// converts it). With `unit`, numbers count a duration (GData's `minutes="15"`).
    case triggerlist
    /// Dated notes (iCalendar's COMMENT, each a task's annotation): each property's or node's
    /// text on a line of its own (its line breaks and tabs as spaces), after the instant its
    /// `stamp` parameter gives in iCalendar's basic UTC form (`20261125T093000Z`; nothing when it
    /// has none or another form) and a tab: `20261125T093000Z\tcalled back`. Empty texts are
    /// left out.
    case notelist
    /// Exchange's recurrence XML (the `t:Recurrence` element the XPath selects) as an RRULE.
    case exchangeRecurrence = "exchange-recurrence"
    /// A time zone: an IANA name as it is, a Windows name (`W. Europe Standard Time`) as its
    /// IANA zone; a name neither knows is no value.
    case timezone
    /// The zone a date-time value is written in when it is UTC (`...Z`): `UTC`; no value for a
    /// floating time or a date. After a TZID alternative, it tells an event repeating in UTC from
    /// one repeating in the import's zone.
    case utc
    /// Base64 text as bytes (a vCard PHOTO, an EWS attachment's content), or the bytes of a
    /// `data:` URI; white space and line breaks inside are ignored, and a link (`https://...`)
    /// is no value.
    case base64
}

/// Where one alternative of a field reads its text.
public enum FeedFieldSource: Sendable, Equatable {
    /// An XPath 1.0 expression relative to the record (or child) element.
    case xpath(String)
    /// A property of the record's payload component (`SUMMARY`), or a parameter of it; `"."`
    /// is a child's own property. ``FeedField/Alternative/component`` reads it in subcomponents.
    case property(name: String, parameter: String?)
    /// Nothing: the alternative gives its default.
    case none
}

/// A field of a mapping: its alternatives, the first that yields a value wins.
public struct FeedField: Sendable {
    /// One way of reading the value.
    public struct Alternative: Sendable {
        public var source: FeedFieldSource
        public var type: FeedValueType
        /// Values replaced by others (EWS `NotStarted` → `pending`), after trimming.
        public var table: [String: String]?
        /// Whether a value the table does not list is no value (else it is kept as it is).
        public var tableOnly: Bool
        /// The value when the source yields none.
        public var defaultValue: String?
        /// Whether every node or property is read, joined by `separator`.
        public var many: Bool
        public var separator: String
        /// The `;`-separated parts of a structured value read (`N`, `ADR`): one, or several whose
        /// non-empty texts are joined by `separator` (an ADR's post office box, extended and street
        /// address as one street).
        public var part: [Int]?

        /// Whether `split` applies to a payload property's escaped value (by ``sourceTexts``),
        /// not to its text afterwards.
        var splitsPropertyValues: Bool {
            guard case .property(_, nil) = source, part == nil, let split, split.count == 1 else { return false }
            return true
        }
        /// XPath of the time zone of a floating time (the TZID parameter for payload properties).
        public var timeZone: String?
        /// For durations: the attribute the duration is added to.
        public var after: String?
        /// Whether each selected element is read as `NAME=text`, and the pairs joined by `;` with
        /// the texts of repeated names joined by `,` (xCal's `<recur>` as an RRULE).
        public var namedValues: Bool
        /// A prefix taken off each text, in any case (`mailto:` of iCalendar addresses).
        public var stripPrefix: String?
        /// A separator each text is split at into several values (iCalendar's `CATEGORIES:a,b`),
        /// for links.
        public var split: String?
        /// Whether text that is not a valid value of its type is no value rather than an error
        /// (a photo given by URL).
        public var lenient: Bool
        /// For dates: the year a day written without one (vCard 4.0's and xCard's `--0203` or
        /// `--02-03`, GData's `--02-03`) is read in. 1604, a leap year, is what Apple's address
        /// books write for a date without a year.
        public var yearless: Int?
        /// For payload properties: only those whose parameter (the key) has one of the values
        /// (compared in any case; `""` stands for the parameter's absence), as a RELATED-TO
        /// whose RELTYPE is `PARENT`, or none, names a parent. Several filters admit what any
        /// of them admits: a to-do's alarms are the TRIGGERs related to its end or at a date.
        public var having: [[String: Set<String>]] = []
        /// For payload properties: the subcomponents of the record's component (`VALARM`) whose
        /// properties are read, in order, instead of the component's own.
        public var component: String?
        /// For `component`: the subcomponents left out, those with a property (the key) of one
        /// of the values (compared in any case): `ACTION` `NONE`, RFC 9074's alarm that never
        /// alerts, which Apple's calendars write as a placeholder.
        public var without: [String: Set<String>] = [:]
        /// For `triggerlist`: how a number is read as a duration.
        var unit: TriggerUnit?
        /// For `notelist` payload properties: the parameter that dates each note
        /// (`X-PIM-ENTRY`).
        public var stamp: String?

        /// Whether `property` passes ``having``.
        func admits(_ parameters: [String: String]) -> Bool {
            having.isEmpty || having.contains { filter in
                filter.allSatisfy { name, values in values.contains((parameters[name] ?? "").uppercased()) }
            }
        }
    }

    public var alternatives: [Alternative]

    init(_ value: Any, at path: String, reader: MappingReader) throws(FeedMappingError) {
        if let list = value as? [Any] {
            guard !list.isEmpty else { throw FeedMappingError(origin: reader.origin, path: path, message: "expected at least one alternative") }
            var alternatives: [Alternative] = []
            for (index, item) in list.enumerated() {
                alternatives.append(try Self.alternative(item, at: "\(path)[\(index)]", reader: reader))
            }
            self.alternatives = alternatives
        } else {
            alternatives = [try Self.alternative(value, at: path, reader: reader)]
        }
    }

    private static func alternative(_ value: Any, at path: String, reader: MappingReader) throws(FeedMappingError) -> Alternative {
        if let xpath = value as? String {
            return Alternative(source: .xpath(xpath), type: .text, table: nil, tableOnly: false, defaultValue: nil, many: false,
                               separator: ", ", part: nil, timeZone: nil, after: nil, namedValues: false, stripPrefix: nil, split: nil, lenient: false)
        }
        let object = try reader.object(value, at: path)
        let source: FeedFieldSource
        switch (object["xpath"], object["property"]) {
        case (let xpath?, nil): source = .xpath(try reader.string(xpath, at: "\(path).xpath"))
        case (nil, let property?):
            let parameter = try object["parameter"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).parameter").uppercased() }
            source = .property(name: try reader.string(property, at: "\(path).property").uppercased(), parameter: parameter)
        case (nil, nil):
            guard object["default"] != nil else {
                throw FeedMappingError(origin: reader.origin, path: path, message: "give xpath, property or default")
            }
            source = .none
        default: throw FeedMappingError(origin: reader.origin, path: path, message: "give either xpath or property, not both")
        }
        let typeName = try object["type"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).type") } ?? "text"
        guard let type = FeedValueType(rawValue: typeName) else {
            throw FeedMappingError(origin: reader.origin, path: "\(path).type",
                                   message: "\"\(typeName)\" is not one of \(FeedValueType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var table: [String: String]?
        if let map = object["map"] {
            var entries: [String: String] = [:]
            for (from, to) in try reader.object(map, at: "\(path).map") {
                entries[from] = try reader.string(to, at: "\(path).map.\(from)")
            }
            table = entries
        }
        var part: [Int]?
        if let value = object["part"] {
            let items = value as? [Any] ?? [value]
            let numbers = items.compactMap { ($0 as? NSNumber)?.intValue }
            guard !numbers.isEmpty, numbers.count == items.count, numbers.allSatisfy({ $0 >= 0 }) else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).part", message: "expected a number from 0, or a list of them")
            }
            part = numbers
        }
        let after = try object["after"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).after") }
        if type == .duration, after == nil {
            throw FeedMappingError(origin: reader.origin, path: "\(path).after", message: "a duration needs the attribute it is added to")
        }
        var having: [[String: Set<String>]] = []
        if let filter = object["having"] {
            guard case .property = source else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).having", message: "having filters payload properties: give property")
            }
            // One filter, or a list of filters of which a property passes one.
            let filters = (filter as? [Any]).map { list in list.enumerated().map { ($1, "\(path).having[\($0)]") } } ?? [(filter, "\(path).having")]
            guard !filters.isEmpty else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).having", message: "expected a filter (an object), or a list of them")
            }
            for (value, place) in filters {
                var parameters: [String: Set<String>] = [:]
                for (name, values) in try reader.object(value, at: place) {
                    let list = values as? [Any] ?? [values]
                    let texts = list.compactMap { $0 as? String }
                    guard !texts.isEmpty, texts.count == list.count else {
                        throw FeedMappingError(origin: reader.origin, path: "\(place).\(name)",
                                               message: "expected a parameter value, or a list of them (\"\" for none)")
                    }
                    parameters[name.uppercased()] = Set(texts.map { $0.uppercased() })
                }
                having.append(parameters)
            }
        }
        var component: String?
        if let name = object["component"] {
            guard case .property(let property, _) = source, property != "." else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).component",
                                       message: "component reads a property of the payload's subcomponents: give property (not \".\")")
            }
            component = try reader.string(name, at: "\(path).component").uppercased()
        }
        var without: [String: Set<String>] = [:]
        if let filter = object["without"] {
            guard component != nil else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).without", message: "without leaves out subcomponents: give component")
            }
            for (name, values) in try reader.object(filter, at: "\(path).without") {
                let list = values as? [Any] ?? [values]
                let texts = list.compactMap { $0 as? String }
                guard !texts.isEmpty, texts.count == list.count else {
                    throw FeedMappingError(origin: reader.origin, path: "\(path).without.\(name)", message: "expected a property value, or a list of them")
                }
                without[name.uppercased()] = Set(texts.map { $0.uppercased() })
            }
        }
        let unit = try object["unit"].map { value throws(FeedMappingError) in try Self.unit(value, at: "\(path).unit", type: type, reader: reader) }
        var stamp: String?
        if let name = object["stamp"] {
            guard type == .notelist, case .property = source else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).stamp",
                                       message: "stamp names the parameter that dates a note: give \"type\": \"notelist\" and property")
            }
            stamp = try reader.string(name, at: "\(path).stamp").uppercased()
        }
        try reader.refuseUnknownKeys(object, known: ["xpath", "property", "parameter", "type", "map", "mapOnly", "default", "many",
                                                     "separator", "part", "timeZone", "after", "namedValues", "stripPrefix", "split", "lenient",
                                                     "having", "yearless", "component", "without", "unit", "stamp"], at: path)
        var alternative = Alternative(
            source: source, type: type, table: table, tableOnly: try reader.flag(object["mapOnly"], at: "\(path).mapOnly"),
            defaultValue: try object["default"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).default") },
            many: try reader.flag(object["many"], at: "\(path).many"),
            separator: object["separator"] as? String ?? ", ", part: part,
            timeZone: try object["timeZone"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).timeZone") },
            after: after, namedValues: try reader.flag(object["namedValues"], at: "\(path).namedValues"),
            stripPrefix: try object["stripPrefix"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).stripPrefix") },
            split: try object["split"].map { value throws(FeedMappingError) in try reader.string(value, at: "\(path).split") },
            lenient: try reader.flag(object["lenient"], at: "\(path).lenient"))
        alternative.having = having
        alternative.component = component
        alternative.without = without
        alternative.unit = unit
        alternative.stamp = stamp
        if let year = object["yearless"] {
            guard let number = year as? Int, (1...9999).contains(number), !(year is Bool) else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).yearless", message: "expected a year (1 to 9999)")
            }
            guard type == .date else {
                throw FeedMappingError(origin: reader.origin, path: "\(path).yearless", message: "only a date field reads days without a year")
            }
            alternative.yearless = number
        }
        return alternative
    }

    /// A `unit`: a duration every number counts, or an object giving one by node name.
    private static func unit(_ value: Any, at path: String, type: FeedValueType, reader: MappingReader) throws(FeedMappingError) -> TriggerUnit {
        guard type == .triggerlist else {
            throw FeedMappingError(origin: reader.origin, path: path, message: "unit reads numbers as durations: give \"type\": \"triggerlist\"")
        }
        func duration(_ value: Any?, at place: String) throws(FeedMappingError) -> TriggerOffset {
            let text = try reader.string(value, at: place)
            guard let offset = TriggerOffset(text) else {
                throw FeedMappingError(origin: reader.origin, path: place, message: "\"\(text)\" is not a duration (-PT1M, PT1H, P1D)")
            }
            return offset
        }
        guard let table = value as? [String: Any] else { return .each(try duration(value, at: path)) }
        guard !table.isEmpty else { throw FeedMappingError(origin: reader.origin, path: path, message: "expected a duration, or node names with theirs") }
        var units: [String: TriggerOffset] = [:]
        for (name, text) in table { units[name] = try duration(text, at: "\(path).\(name)") }
        return .byNodeName(units)
    }
}
