package io.github.retryafter.boot.autoconfigure;

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import io.github.retryafter.NearestName;

/**
 * Fails at startup on a property under {@code retry.after.*} that retry-after does not have, naming it and the valid
 * property nearest it by edit distance: a typo ({@code max-attemps}) or a setting that does not exist would otherwise
 * be ignored without a word. The valid names are read from the property classes themselves
 * ({@link RetryAfterProperties}, {@link RetryAfterFleetProperties}) and the switches read by conditions, so a new
 * property is known as soon as it is declared. The keys of {@code providers} are provider names, free to choose; only
 * the keys below a provider are checked. Names from environment variables are not checked: their mapping onto dashed
 * names is ambiguous ({@code RETRY_AFTER_MAX_ATTEMPTS} reads as {@code retry.after.max.attempts}). Stateless.
 */
final class UnknownProperties {

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("retry.after");

	/** The switches read only by {@code @ConditionalOnBooleanProperty}, as dashed names below the prefix. */
	private static final List<String> SWITCHES = List.of("ok-http.enabled", "spring-ai.enabled");

	private static final Node ROOT = root();

	private UnknownProperties() {
	}

	/**
	 * Checks every {@code retry.after.*} name in the environment's property sources.
	 * @param environment the environment
	 * @throws InvalidConfigurationPropertyValueException naming the first unknown property (and listing the others)
	 */
	static void check(Environment environment) {
		Map<String, Unknown> unknown = new TreeMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)
					|| source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource) {
				continue;
			}
			for (ConfigurationPropertyName name : (Iterable<ConfigurationPropertyName>) iterable.stream()
				.filter(PREFIX::isAncestorOf)::iterator) {
				String nearest = nearestIfUnknown(name);
				if (nearest != null && !unknown.containsKey(name.toString())) {
					// the value of the source that wins for this name: the first that has it
					ConfigurationProperty property = source.getConfigurationProperty(name);
					unknown.put(name.toString(), new Unknown(nearest, (property != null) ? property.getValue() : null));
				}
			}
		}
		if (unknown.isEmpty()) {
			return;
		}
		Map.Entry<String, Unknown> first = unknown.entrySet().iterator().next();
		StringBuilder reason = new StringBuilder("retry-after has no property '").append(first.getKey())
			.append("'; did you mean '").append(first.getValue().nearest()).append("'?");
		unknown.entrySet().stream().skip(1).forEach((entry) -> reason.append(" Nor '").append(entry.getKey())
			.append("' (did you mean '").append(entry.getValue().nearest()).append("'?). That one is set to '")
			.append(entry.getValue().value()).append("'."));
		throw new InvalidConfigurationPropertyValueException(first.getKey(), first.getValue().value(),
				reason.toString());
	}

	/** An unknown name's nearest valid one, and its own value. */
	private record Unknown(String nearest, Object value) {
	}

	/**
	 * Returns {@code null} when {@code name} is a valid retry-after property, else the valid name nearest it.
	 * @param name a name under {@code retry.after}
	 * @return the nearest valid name, or {@code null} for a valid one
	 */
	static String nearestIfUnknown(ConfigurationPropertyName name) {
		Node node = ROOT;
		for (int i = PREFIX.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
			if (node.anySuffix || (node.indexed && name.isNumericIndex(i))) {
				return null;
			}
			Node child = node.children.get(name.getElement(i, Form.UNIFORM));
			if (child == null) {
				child = node.mapValues;
			}
			if (child == null) {
				String matched = (i > 0) ? name.chop(i).toString() : "";
				List<String> candidates = new ArrayList<>();
				node.leaves(matched, name, i, candidates);
				return NearestName.of(name.toString(), candidates).orElse(matched);
			}
			node = child;
		}
		return null;
	}

	/** Every valid name, with {@code *} for a provider's name: for tests and messages. */
	static List<String> validNames() {
		List<String> names = new ArrayList<>();
		ROOT.leaves(PREFIX.toString(), PREFIX, PREFIX.getNumberOfElements(), names);
		return names;
	}

	private static Node root() {
		Node root = Node.of("", RetryAfterProperties.class);
		root.children.put("fleet", Node.of("fleet", RetryAfterFleetProperties.class));
		for (String name : SWITCHES) {
			Node node = root;
			for (String part : name.split("\\.")) {
				node = node.children.computeIfAbsent(uniform(part), (key) -> new Node(part));
			}
		}
		return root;
	}

	private static String uniform(String dashed) {
		return dashed.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
	}

	/**
	 * One node of the tree of valid names: its children by uniform name, the node under any map key, and whether
	 * anything may follow (a map of plain values) or an index (a list).
	 */
	private static final class Node {

		final String dashed;

		final Map<String, Node> children = new TreeMap<>();

		Node mapValues;

		boolean anySuffix;

		boolean indexed;

		Node(String dashed) {
			this.dashed = dashed;
		}

		static Node of(String dashed, Class<?> type) {
			Node node = new Node(dashed);
			node.addProperties(type);
			return node;
		}

		private void addProperties(Class<?> type) {
			for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
				Method getter = descriptor.getReadMethod();
				if (getter == null || getter.getDeclaringClass() == Object.class) {
					continue;
				}
				String dashed = dashed(descriptor.getName());
				this.children.put(uniform(dashed), property(dashed, ResolvableType.forMethodReturnType(getter)));
			}
		}

		private static Node property(String dashed, ResolvableType type) {
			Node node = new Node(dashed);
			Class<?> raw = type.resolve(Object.class);
			if (Map.class.isAssignableFrom(raw)) {
				Class<?> values = type.asMap().getGeneric(1).resolve(Object.class);
				if (isGroup(values)) {
					node.mapValues = new Node("*");
					node.mapValues.addProperties(values);
				}
				else {
					node.anySuffix = true;
				}
			}
			else if (Collection.class.isAssignableFrom(raw) || raw.isArray()) {
				node.indexed = true;
			}
			else if (isGroup(raw)) {
				node.addProperties(raw);
			}
			return node;
		}

		/** A nested group of properties: one of the starter's own classes, not an enum. */
		private static boolean isGroup(Class<?> type) {
			return type.getName().startsWith("io.github.retryafter.boot.") && !type.isEnum() && !type.isInterface();
		}

		private static String dashed(String camel) {
			return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
		}

		/** Adds the full names of every leaf below, the written name's elements standing in for map keys. */
		void leaves(String prefix, ConfigurationPropertyName written, int depth, List<String> into) {
			if (this.children.isEmpty() && this.mapValues == null) {
				into.add(prefix);
				return;
			}
			String dot = prefix.isEmpty() ? "" : prefix + ".";
			this.children.values().forEach((child) -> child.leaves(dot + child.dashed, written, depth + 1, into));
			if (this.mapValues != null) {
				String key = (depth < written.getNumberOfElements()) ? written.getElement(depth, Form.DASHED) : "*";
				this.mapValues.leaves(dot + key, written, depth + 1, into);
			}
		}

	}

}
