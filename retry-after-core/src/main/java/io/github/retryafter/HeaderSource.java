package io.github.retryafter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The response header fields the planner reads, looked up case-insensitively.
 * <p>
 * Adapt Spring's {@code HttpHeaders} with {@code headers::getValuesAsList}-style lambdas, a {@code Map} with
 * {@link #of(Map)}, and raw header lines (as {@code curl -sI} prints them) with {@link #parse(String)}. Every field line
 * is one element of the returned list: two {@code Retry-After} lines give two values.
 */
@FunctionalInterface
public interface HeaderSource {

	/**
	 * Returns every value of the field {@code name}, in the order received, one element per field line.
	 * @param name the field name, matched case-insensitively
	 * @return the values, empty when the field is absent; never {@code null}
	 */
	List<String> values(String name);

	/**
	 * Returns a source with no fields.
	 * @return the empty source
	 */
	static HeaderSource empty() {
		return name -> List.of();
	}

	/**
	 * Adapts a map of field names to values; names are matched case-insensitively. The map is copied.
	 * @param headers the fields
	 * @return a source over a copy of {@code headers}
	 */
	static HeaderSource of(Map<String, ? extends List<String>> headers) {
		TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		headers.forEach((name, values) -> copy.computeIfAbsent(name, key -> new ArrayList<>()).addAll(values));
		copy.replaceAll((name, values) -> List.copyOf(values));
		return name -> copy.getOrDefault(name, List.of());
	}

	/**
	 * Parses raw response header lines, as {@code curl -sI} prints them: an optional status line, CRLF or LF line
	 * endings, and a blank line between responses. When several responses are present ({@code curl -sIL}, a
	 * {@code 100 Continue}), only the last is read. Obsolete line folding (a line starting with SP or HTAB) continues the
	 * previous field's value.
	 * @param raw the header block
	 * @return a source over the last response's fields
	 */
	static HeaderSource parse(String raw) {
		List<String[]> fields = new ArrayList<>();
		for (String line : raw.split("\r?\n", -1)) {
			if (line.startsWith("HTTP/")) {
				fields.clear();
				continue;
			}
			if ((line.startsWith(" ") || line.startsWith("\t")) && !fields.isEmpty()) {
				String[] last = fields.get(fields.size() - 1);
				last[1] = last[1] + " " + line.strip();
				continue;
			}
			int colon = line.indexOf(':');
			if (colon > 0) {
				fields.add(new String[] { line.substring(0, colon).strip(), line.substring(colon + 1) });
			}
		}
		TreeMap<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		for (String[] field : fields) {
			map.computeIfAbsent(field[0].toLowerCase(Locale.ROOT), key -> new ArrayList<>()).add(field[1]);
		}
		map.replaceAll((name, values) -> Collections.unmodifiableList(values));
		return name -> map.getOrDefault(name, List.of());
	}

}
