package io.github.retryafter.request;

import java.net.URI;
import java.util.Locale;

/**
 * How a request's URI names its origin ({@code scheme://host:port}, lower case, the scheme's default port made
 * explicit), the key of per-origin state. Stateless.
 */
public final class Origins {

	private Origins() {
	}

	/**
	 * Returns the host of a URI, lower case: {@link URI#getHost()}, or, when that cannot parse it (a name with an
	 * underscore, which URIs do not allow but DNS and HTTP clients do), the host part of the authority.
	 * @param uri the request's URI
	 * @return the host, or {@code null} when the URI has none
	 */
	public static String host(URI uri) {
		String host = uri.getHost();
		if (host == null) {
			String authority = uri.getRawAuthority();
			if (authority == null) {
				return null;
			}
			int at = authority.lastIndexOf('@');
			host = authority.substring(at + 1);
			if (!host.startsWith("[")) {
				int colon = host.lastIndexOf(':');
				host = (colon >= 0) ? host.substring(0, colon) : host;
			}
			if (host.isEmpty()) {
				return null;
			}
		}
		return lowerCase(host);
	}

	/**
	 * Returns the origin of a URI, {@code scheme://host:port}, lower case, with the scheme's default port made
	 * explicit, so {@code https://API.example} and {@code https://api.example:443} are one origin.
	 * @param uri the request's URI
	 * @return the origin; {@code scheme://} alone when the URI has no host
	 */
	public static String origin(URI uri) {
		String scheme = scheme(uri);
		return origin(scheme, host(uri), port(uri, scheme));
	}

	/**
	 * Returns the origin {@code scheme://host:port}, or {@code scheme://} without a host.
	 * @param scheme the scheme, lower case
	 * @param host the host, lower case, or {@code null}
	 * @param port the port
	 * @return the origin
	 */
	public static String origin(String scheme, String host, int port) {
		return (host == null) ? scheme + "://" : scheme + "://" + host + ":" + port;
	}

	/**
	 * Returns the URI's scheme in lower case, {@code http} if it has none.
	 * @param uri the request's URI
	 * @return the scheme
	 */
	public static String scheme(URI uri) {
		return (uri.getScheme() != null) ? lowerCase(uri.getScheme()) : "http";
	}

	/**
	 * Returns the URI's port, or its scheme's default.
	 * @param uri the request's URI
	 * @param scheme its scheme, as {@link #scheme} reads it
	 * @return the port
	 */
	public static int port(URI uri, String scheme) {
		if (uri.getPort() >= 0) {
			return uri.getPort();
		}
		String authority = uri.getRawAuthority();
		if (uri.getHost() == null && authority != null) {
			String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
			int colon = hostPort.lastIndexOf(':');
			if (colon >= 0 && !hostPort.endsWith("]")) {
				try {
					return Integer.parseInt(hostPort.substring(colon + 1));
				}
				catch (NumberFormatException ex) {
					// not a port: the scheme's default below
				}
			}
		}
		return switch (scheme) {
			case "https", "wss" -> 443;
			default -> 80;
		};
	}

	/**
	 * Returns {@code text} in lower case, as {@code text.toLowerCase(Locale.ROOT)} does: the same string when it holds
	 * no upper-case ASCII letter and nothing beyond ASCII (a host or scheme as URIs usually spell them), found by a
	 * plain scan instead of the JDK's case tables, which cost every request some 1-2 ns a character.
	 * @param text the text
	 * @return its lower case
	 */
	static String lowerCase(String text) {
		return asciiWithout(text, 'A') ? text : text.toLowerCase(Locale.ROOT);
	}

	/**
	 * Returns a host in lower case as URIs write it: an IPv6 address (a host with a colon) in brackets, as
	 * {@link URI#getHost()} gives it, so its origin is the same whichever way a client names it.
	 * @param host a host in lower case, an IPv6 address with or without its brackets
	 * @return the host, bracketed if it is an IPv6 address
	 */
	static String bracketed(String host) {
		return (host.indexOf(':') >= 0 && !host.startsWith("[")) ? "[" + host + "]" : host;
	}

	/**
	 * Returns {@code text} in upper case, as {@code text.toUpperCase(Locale.ROOT)} does: the same string when it holds
	 * no lower-case ASCII letter and nothing beyond ASCII (an HTTP method as clients spell it).
	 * @param text the text
	 * @return its upper case
	 */
	static String upperCase(String text) {
		return asciiWithout(text, 'a') ? text : text.toUpperCase(Locale.ROOT);
	}

	/** Whether {@code text} is ASCII without a letter of the case that starts at {@code first}. */
	private static boolean asciiWithout(String text, char first) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if ((c >= first && c <= first + 25) || c >= 0x80) {
				return false;
			}
		}
		return true;
	}

}
