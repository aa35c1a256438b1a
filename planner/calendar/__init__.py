"""Calendars: iCalendar events, the feed, vdir folders and CalDAV."""
