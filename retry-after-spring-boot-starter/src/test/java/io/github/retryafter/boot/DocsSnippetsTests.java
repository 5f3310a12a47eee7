package io.github.retryafter.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block of {@code README.md} and {@code docs/*.md} compiles, against what a team's test
 * classpath has: the core, the starter, the fixtures of {@code retry-after-test}, Spring Boot's test support, JUnit and
 * AssertJ. The pages are read from the repository, not copied, so a page edited without its code failing here cannot
 * drift from the API.
 * <p>
 * How a block is compiled: each in its own package, after the imports of {@link #IMPORTS} (a block may add its own).
 * A block with a top-level {@code class}, {@code record}, {@code interface} or {@code enum} is a compilation unit as it
 * is. Any other block is a fragment: it becomes the body of a method {@code void run(...) throws Exception}, whose
 * parameters are the variables the fragment uses without declaring them, named in an HTML comment on the line before
 * the fence, which a rendered page does not show: {@code <!-- given: WebClient webClient, String chargeId -->}. An
 * error is reported as {@code page:line: message}, the line being the page's.
 * <p>
 * Also: every page under {@code docs/} is linked from the README, and every relative link of the pages names a file
 * that exists.
 */
class DocsSnippetsTests {

	/** The repository: Surefire runs in the module's directory. */
	private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

	/** What every block is compiled after: the types the pages use without saying where they come from. */
	static final List<String> IMPORTS = List.of("import java.net.URI;", "import java.net.http.HttpClient;",
			"import java.net.http.HttpRequest;", "import java.net.http.HttpResponse;",
			"import java.net.http.HttpResponse.BodyHandlers;", "import java.time.*;", "import java.util.*;",
			"import java.util.concurrent.TimeUnit;", "import io.github.retryafter.*;",
			"import io.github.retryafter.budget.*;", "import io.github.retryafter.engine.*;",
			"import io.github.retryafter.hint.*;",
			"import io.github.retryafter.jdk.*;", "import io.github.retryafter.pacing.*;",
			"import io.github.retryafter.request.*;",
			"import io.github.retryafter.test.*;", "import io.github.retryafter.boot.*;",
			"import org.junit.jupiter.api.Test;", "import org.springframework.beans.factory.annotation.Autowired;",
			"import org.springframework.beans.factory.annotation.Value;",
			"import org.springframework.boot.test.context.SpringBootTest;",
			"import org.springframework.boot.test.context.TestConfiguration;",
			"import org.springframework.context.annotation.Bean;",
			"import org.springframework.context.annotation.Configuration;",
			"import org.springframework.web.client.RestClient;",
			"import org.springframework.web.reactive.function.client.WebClient;",
			"import static org.assertj.core.api.Assertions.assertThat;");

	private static final Pattern OPENING = Pattern.compile("^(\\s*)```java\\s*$");

	private static final Pattern GIVEN = Pattern.compile("^\\s*<!--\\s*given:(.*)-->\\s*$");

	private static final Pattern TYPE = Pattern
		.compile("^((public|final|abstract|sealed|static) )*(class|record|interface|enum) \\w+", Pattern.MULTILINE);

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	@TempDir
	Path classes;

	@Test
	void everyJavaBlockOfTheReadmeAndTheDocsCompiles() {
		List<Snippet> snippets = new ArrayList<>();
		for (Path page : pages()) {
			snippets.addAll(extract(ROOT.relativize(page).toString(), read(page)));
		}
		assertThat(snippets).as("the pages' java blocks").hasSizeGreaterThanOrEqualTo(6);
		assertThat(compile(snippets, this.classes)).as("errors, as page:line: message").isEmpty();
	}

	@Test
	void aBlockThatDoesNotCompileIsReportedWithItsPageAndLine() {
		String page = """
				# A page

				<!-- given: WebClient webClient -->
				```java
				String quote = webClient.get().uri("/quote").retrieve().bodyToMono(String.class).block();
				int pence = quote;
				```

				```java
				class Fine {
				    Duration wait = Duration.ofSeconds(3);
				}
				```
				""";
		List<Snippet> snippets = extract("docs/page.md", page);

		assertThat(snippets).extracting(Snippet::fragment).containsExactly(true, false);
		assertThat(compile(snippets, this.classes)).singleElement()
			.asString()
			.startsWith("docs/page.md:6: ")
			.contains("incompatible types");
	}

	@Test
	void everyPageOfTheDocsIsLinkedFromTheReadme() {
		String readme = read(ROOT.resolve("README.md"));
		assertThat(pages()).filteredOn((page) -> page.getParent().endsWith("docs"))
			.isNotEmpty()
			.allSatisfy((page) -> assertThat(readme).contains("](docs/" + page.getFileName() + ")"));
	}

	@Test
	void everyRelativeLinkOfThePagesNamesAFileThatExists() {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			Matcher link = LINK.matcher(read(page));
			while (link.find()) {
				String target = link.group(1);
				if (target.contains("://") || target.startsWith("#") || target.startsWith("mailto:")) {
					continue;
				}
				String file = target.replaceFirst("#.*$", "");
				if (!Files.exists(page.getParent().resolve(file))) {
					broken.add(ROOT.relativize(page) + ": " + target);
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	private static List<Path> pages() {
		List<Path> pages = new ArrayList<>();
		pages.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return pages;
	}

	private static String read(Path page) {
		try {
			return Files.readString(page, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The {@code ```java} blocks of a page, each with the page line of its first line of code. */
	static List<Snippet> extract(String page, String text) {
		List<Snippet> snippets = new ArrayList<>();
		String[] lines = text.split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			Matcher opening = OPENING.matcher(lines[i]);
			if (!opening.matches()) {
				continue;
			}
			int indent = opening.group(1).length();
			String given = "";
			if (i > 0) {
				Matcher comment = GIVEN.matcher(lines[i - 1]);
				if (comment.matches()) {
					given = comment.group(1).trim();
				}
			}
			StringBuilder code = new StringBuilder();
			int first = i + 2;
			int j = i + 1;
			while (j < lines.length && !lines[j].trim().equals("```")) {
				code.append(lines[j].length() >= indent ? lines[j].substring(indent) : lines[j].trim()).append('\n');
				j++;
			}
			assertThat(j).as("%s:%d: a java block that is never closed", page, i + 1).isLessThan(lines.length);
			snippets.add(new Snippet(page, first, code.toString(), given, snippets.size()));
			i = j;
		}
		return snippets;
	}

	/** Compiles every snippet in one compiler run; returns the errors, as {@code page:line: message}. */
	static List<String> compile(List<Snippet> snippets, Path classes) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		List<Source> sources = snippets.stream().map(Source::new).toList();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> options = List.of("-proc:none", "--release", "17", "-classpath", classpath, "-d",
				classes.toString());
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT,
				StandardCharsets.UTF_8)) {
			compiler.getTask(null, files, diagnostics, options, null, sources).call();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() != Diagnostic.Kind.ERROR) {
				continue;
			}
			if (!(diagnostic.getSource() instanceof Source source)) {
				errors.add(diagnostic.getMessage(Locale.ROOT));
				continue;
			}
			Snippet snippet = source.snippet;
			long line = Math.max(snippet.line(), snippet.line() + diagnostic.getLineNumber() - source.preamble - 1);
			errors.add(snippet.page() + ":" + line + ": " + diagnostic.getMessage(Locale.ROOT));
		}
		return errors;
	}

	/**
	 * One {@code ```java} block.
	 * @param page the page, relative to the repository
	 * @param line the page's line of the block's first line of code
	 * @param code the block, without its fences and its indentation
	 * @param given the parameters of a fragment's method, from its {@code <!-- given: ... -->} comment
	 * @param index the block's position on its page
	 */
	record Snippet(String page, int line, String code, String given, int index) {

		boolean fragment() {
			return !TYPE.matcher(this.code).find();
		}

	}

	/** A snippet as a compilation unit: its package, the imports, and for a fragment the class and method. */
	private static final class Source extends SimpleJavaFileObject {

		private final Snippet snippet;

		private final String text;

		/** The lines before the snippet's first line. */
		private final int preamble;

		Source(Snippet snippet) {
			super(URI.create("string:///" + packageOf(snippet) + "/Snippet.java"), Kind.SOURCE);
			this.snippet = snippet;
			List<String> head = new ArrayList<>();
			head.add("package " + packageOf(snippet) + ";");
			head.addAll(IMPORTS);
			String tail = "";
			if (snippet.fragment()) {
				head.add("class Snippet {");
				head.add("void run(" + snippet.given() + ") throws Exception {");
				tail = "}\n}\n";
			}
			this.preamble = head.size();
			this.text = String.join("\n", head) + "\n" + snippet.code() + tail;
		}

		private static String packageOf(Snippet snippet) {
			return "snippets." + snippet.page().replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT) + ".block"
					+ snippet.index();
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.text;
		}

	}

}
