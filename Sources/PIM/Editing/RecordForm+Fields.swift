// The editable fields of tasks, events and contacts, in the order forms show them.
import Foundation
import ObjectGraph

extension RecordForm {
    static var taskFields: [FormField] {
        [
            .text("title", "what to do", required: true),
            FormField("status", "pending, started, done or cancelled", read: { record, _ in (record as? TaskItem)?.status ?? "" }) { record, text, store throws(PIMError) in
                guard let task = record as? TaskItem else { return }
                switch text {
                case "pending": task.status = "pending"; task.completed = nil
                case "started": store.start(task)
                case "done": store.complete(task)
                case "cancelled": task.status = "cancelled"; task.completed = store.now
                default: throw PIMError.usage("status \"\(text)\": expected pending, started, done or cancelled")
                }
            },
            FormField("priority", "H, M, L or empty", read: { record, _ in TaskPriority.letter((record as? TaskItem)?.priority ?? 0) ?? "" }) { record, text, _ throws(PIMError) in
                (record as? TaskItem)?.priority = try TaskPriority.value(text)
            },
            .date("due", "due date: 2026-12-01 17:00, tomorrow 17:00, next friday, eow..."),
            .date("scheduled", "when to start"),
            .date("wait", "hidden from lists until then"),
            FormField("repeat", "daily, weekly, monthly, yearly, weekdays, an RRULE, or empty (needs a due date)", read: { record, _ in
                (record as? TaskItem)?.recurrenceRule ?? ""
            }) { record, text, store throws(PIMError) in
                guard let task = record as? TaskItem else { return }
                try store.setRepeat(text, of: task)
            },
            .alarms(forTask: true),
            .text("project", "a project; dots make sub-projects"),
            FormField("tags", "comma-separated", read: { record, _ in
                ((record as? TaskItem)?.tags.compactMap(\.name).sorted() ?? []).joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let task = record as? TaskItem else { return }
                try store.setTags(FormField.items(text), of: task)
            },
            .reference("assignee", "the contact it is assigned to", kind: .contact),
            .reference("event", "the event it prepares for", kind: .event),
            FormField.reference("parent", "the task it is a subtask of", kind: .task).checked { record, _ throws(PIMError) in
                // A task may not be its own subtask, nor a subtask of one of its subtasks.
                var ancestor = (record as? TaskItem)?.parent
                var steps = 0
                while let current = ancestor, steps < 100_000 {
                    if current === record { throw PIMError.usage("parent: a task cannot be a subtask of itself or of its own subtasks") }
                    ancestor = current.parent
                    steps += 1
                }
            },
            FormField("depends-on", "tasks that must be done first, comma-separated", read: { record, _ in
                ((record as? TaskItem)?.dependencies.map(\.number).sorted() ?? []).map(String.init).joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let task = record as? TaskItem else { return }
                try store.setDependencies(FormField.items(text), of: task)
            },
            .text("notes", "notes"),
        ]
    }

    static var eventFields: [FormField] {
        [
            .text("title", "what happens", required: true),
            FormField("start", "start: 2026-12-01 10:00, fri 9am...; the end moves with it", read: { record, store in
                if let days = (record as? Event)?.days(fallback: store.calendar) { return OutputFormat.day(days.first) }
                return (record.value(forKey: "start") as? Date).map { OutputFormat.local($0, timeZone: store.timeZone) } ?? ""
            }) { record, text, store throws(PIMError) in
                guard let event = record as? Event else { return }
                try store.moveEvent(event, toStart: text)
            },
            FormField("end", "end", read: { record, store in
                if let days = (record as? Event)?.days(fallback: store.calendar) { return OutputFormat.day(days.last) }
                return (record.value(forKey: "end") as? Date).map { OutputFormat.local($0, timeZone: store.timeZone) } ?? ""
            }) { record, text, store throws(PIMError) in
                guard let event = record as? Event else { return }
                try store.setEnd(of: event, to: text)
            },
            .text("location", "where"),
            FormField("repeat", "daily, weekly, monthly, yearly, weekdays, an RRULE, or empty", read: { record, _ in
                (record as? Event)?.recurrenceRule ?? ""
            }) { record, text, store throws(PIMError) in
                guard let event = record as? Event else { return }
                if let master = event.master, !text.isEmpty {
                    throw PIMError.usage("repeat: event \(event.number) is a changed occurrence of event \(master.number), and does not repeat on its own")
                }
                event.recurrenceRule = text.isEmpty ? nil : try PIMStore.ruleText(text)
                // A one-off event skips nothing: its skipped occurrences go with its rule, so
                // that a rule set again later does not silently miss them, and so do its changed
                // occurrences, whose series is gone.
                if text.isEmpty {
                    event.exceptionDates = nil
                    for changed in event.overrides { store.context.delete(changed) }
                }
            },
            .alarms(forTask: false),
            FormField("skipped", "occurrences of a repeating event it skips, comma-separated: 2026-12-04, 2026-12-11 09:00", read: { record, store in
                guard let event = record as? Event else { return "" }
                return event.skippedOccurrences.map { start in
                    event.allDay ? OutputFormat.day(start) : OutputFormat.local(start, timeZone: store.timeZone)
                }.joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let event = record as? Event else { return }
                try store.setSkippedOccurrences(of: event, to: text)
            },
            FormField("status", "tentative, confirmed or cancelled", read: { record, _ in (record as? Event)?.status ?? "" }) { record, text, _ throws(PIMError) in
                try Event.checkStatus(text)
                (record as? Event)?.status = text
            },
            .text("calendar", "the calendar it belongs to", required: true),
            FormField("attendees", "contacts, comma-separated (numbers, ids or names)", read: { record, _ in
                ((record as? Event)?.attendees.map(\.number).sorted() ?? []).map(String.init).joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let event = record as? Event else { return }
                let resolver = RecordResolver(store: store)
                let attendees = try FormField.items(text).map { item throws(PIMError) in try resolver.resolve(item, as: .contact) }
                event.attendees = attendees.compactMap { $0 as? Contact }
            },
            .text("notes", "notes"),
        ]
    }

    static var contactFields: [FormField] {
        [
            FormField.text("name", "the full name", required: true).checked { record, _ throws(PIMError) in
                // A person's name parts follow a new name, as `add` splits it.
                guard let person = record as? Person, let name = person.name else { return }
                PIMStore.setNameParts(of: person, from: name)
            },
            .text("nickname", "a person's nickname"),
            .text("organization", "the organization a person works for"),
            .text("jobTitle", "a person's job title"),
            .day("birthday", "a person's birthday: 1990-04-01, or --04-01 without a year"),
            .day("anniversary", "a person's anniversary: 2016-06-18, or --06-18 without a year"),
            FormField("emails", "comma-separated, each optionally label:address", read: { record, _ in
                ((record as? Contact)?.emailAddresses ?? []).map { ($0.label.map { $0 + ":" } ?? "") + ($0.address ?? "") }.joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let contact = record as? Contact else { return }
                let entries = FormField.items(text)
                for entry in entries where !PIMStore.labelled(entry).value.contains("@") {
                    throw PIMError.usage("email \"\(entry)\": expected an address such as ann@example.org")
                }
                for old in contact.emailAddresses { store.context.delete(old) }
                contact.emailAddresses = OrderedSet(entries.map { entry in
                    let email = EmailAddress(context: store.context)
                    (email.label, email.address) = PIMStore.labelled(entry)
                    return email
                })
            },
            FormField("phones", "comma-separated, each optionally label:number", read: { record, _ in
                ((record as? Contact)?.phoneNumbers ?? []).map { ($0.label.map { $0 + ":" } ?? "") + ($0.number ?? "") }.joined(separator: ", ")
            }) { record, text, store throws(PIMError) in
                guard let contact = record as? Contact else { return }
                let entries = FormField.items(text)
                try PIMStore.checkPhones(entries)
                for old in contact.phoneNumbers { store.context.delete(old) }
                contact.phoneNumbers = OrderedSet(entries.map { entry in
                    let phone = PhoneNumber(context: store.context)
                    (phone.label, phone.number) = PIMStore.labelled(entry)
                    return phone
                })
            },
            FormField("addresses", "'|'-separated, each optionally label:street;locality;region;postal code;country", read: { record, _ in
                ((record as? Contact)?.postalAddresses ?? []).map(PIMStore.postalAddressText).joined(separator: " | ")
            }) { record, text, store throws(PIMError) in
                guard let contact = record as? Contact else { return }
                for old in contact.postalAddresses { store.context.delete(old) }
                contact.postalAddresses = OrderedSet(text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }.map(store.postalAddress))
            },
            .text("notes", "notes"),
        ]
    }
}
