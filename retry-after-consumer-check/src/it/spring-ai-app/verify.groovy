// The app's build passed; check that it really ran the model calls (a build that runs no test passes too).
def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 5, Failures: 0, Errors: 0, Skipped: 0') : 'the five model-call checks did not all run'
assert !log.contains('retry-after-spring-boot-starter/@') : 'the version was not filtered'
def report = new File(basedir, 'target/surefire-reports/TEST-com.example.models.ModelCallsTests.xml')
assert report.isFile() : 'no report of ModelCallsTests'
return true
