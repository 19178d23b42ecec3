package dev.delayq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayq.Ack;
import dev.delayq.ClaimOptions;
import dev.delayq.ClaimedJob;
import dev.delayq.DelayQ;
import dev.delayq.Job;
import dev.delayq.JobState;
import dev.delayq.JobQueue;
import dev.delayq.internal.Keys;
import dev.delayq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** job, list, cancel, reschedule, retry, purge and check. */
class JobCommandsTest {
    @RegisterExtension
    static final RedisExtension REDIS = RedisExtension.shared();

    private Cli cli;
    private DelayQ dq;
    private JobQueue q;

    @BeforeEach
    void connect() {
        cli = new Cli(REDIS.uri(), REDIS.prefix());
        dq = DelayQ.builder().redis(REDIS.uri()).prefix(REDIS.prefix()).build();
        q = dq.queue("orders");
    }

    @AfterEach
    void close() {
        dq.close();
    }

    /** Enqueues the jobs due now, claims them all and fails each for good with {@code error}. */
    private void killJobs(String error, String... ids) {
        for (String id : ids) {
            q.enqueue(Job.builder().id(id).payload("p-" + id).build());
        }
        List<ClaimedJob> claimed = q.leases().claim(ClaimOptions.of(ids.length, Duration.ofMinutes(1))).jobs();
        assertThat(claimed).hasSize(ids.length);
        for (ClaimedJob j : claimed) {
            q.leases().fail(j.lease(), error, false, Duration.ZERO);
        }
    }

    private void completeJobs(String... ids) {
        for (String id : ids) {
            q.enqueue(Job.builder().id(id).build());
        }
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(ids.length, Duration.ofMinutes(1))).jobs()) {
            q.leases().complete(j.lease());
        }
    }

    @Test
    void jobShowsEveryFieldAsTextAndJson() throws Exception {
        killJobs("exit 3: first line\nsecond line", "d1");
        Cli.Result text = cli.run("job", "orders", "d1");
        assertThat(text.exit()).isZero();
        assertThat(text.lines()).contains("id            d1", "state         dead", "attempt       1",
                "error         \"exit 3: first line\\nsecond line\"", "payload       p-d1", "payloadBytes  4");
        assertThat(text.lines()).allMatch(l -> l.matches("[a-zA-Z0-9]+ +.*"));

        JsonNode json = Json.MAPPER.readTree(cli.run("job", "orders", "d1", "--json").out());
        assertThat(json.get("id").asText()).isEqualTo("d1");
        assertThat(json.get("state").asText()).isEqualTo("dead");
        assertThat(json.get("attempt").asInt()).isEqualTo(1);
        assertThat(json.get("error").asText()).isEqualTo("exit 3: first line\nsecond line");
        assertThat(json.get("payload").asText()).isEqualTo("p-d1");
        assertThat(Instant.parse(json.get("finishedAt").asText())).isNotNull();

        Cli.Result missing = cli.run("job", "orders", "nope");
        assertThat(missing.exit()).isEqualTo(Exit.FAILED);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err()).isEqualTo("delayq: no job 'nope' in queue 'orders'\n");
    }

    @Test
    void jobShowsTheErrorHistoryNewestFirstAndCheckStaysClean() throws Exception {
        q.enqueue(Job.builder().id("flaky").maxAttempts(5).build());
        for (int i = 1; i <= 3; i++) {
            q.reschedule("flaky", Duration.ZERO);
            ClaimedJob j = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
            q.leases().fail(j.lease(), i == 2 ? "timeout: two\nlines" : "boom " + i, true, Duration.ofHours(1));
        }
        JsonNode json = Json.MAPPER.readTree(cli.run("job", "orders", "flaky", "--json").out());
        JsonNode errors = json.get("errors");
        assertThat(errors).hasSize(3);
        assertThat(errors.findValuesAsText("attempt")).containsExactly("3", "2", "1");
        assertThat(errors.findValuesAsText("error")).containsExactly("boom 3", "timeout: two\nlines", "boom 1");
        assertThat(Instant.parse(errors.get(0).get("at").asText())).isAfterOrEqualTo(Instant.parse(errors.get(2).get("at").asText()));

        Cli.Result text = cli.run("job", "orders", "flaky");
        assertThat(text.lines()).filteredOn(l -> l.startsWith("errors ")).hasSize(3);
        assertThat(text.lines()).anyMatch(l -> l.matches("errors +attempt 2 at \\S+Z: \"timeout: two\\\\nlines\""));
        assertThat(text.lines()).allMatch(l -> l.matches("[a-zA-Z0-9]+ +.*"));

        completeJobs("never-failed");
        assertThat(Json.MAPPER.readTree(cli.run("job", "orders", "never-failed", "--json").out()).get("errors")).isEmpty();
        assertThat(cli.run("job", "orders", "never-failed").lines()).contains("errors        -");
        Cli.Result check = cli.run("check", "orders");
        assertThat(check.exit()).as(check.out() + check.err()).isZero();
    }

    @Test
    void listPagesThroughAnyNumberOfJobsInIndexOrder() throws Exception {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            jobs.add(Job.builder().id(String.format("j%04d", i)).delay(Duration.ofHours(1)).build());
        }
        q.enqueueAll(jobs);

        Cli.Result all = cli.run("list", "orders", "--state", "scheduled", "--limit", "100000", "--json");
        assertThat(all.exit()).isZero();
        assertThat(all.lines()).hasSize(2500);
        List<String> ids = new ArrayList<>();
        for (String line : all.lines()) {
            JsonNode n = Json.MAPPER.readTree(line);
            assertThat(n.get("state").asText()).isEqualTo("scheduled");
            ids.add(n.get("id").asText());
        }
        assertThat(ids).doesNotHaveDuplicates().isSorted(); // same due ms, so enqueue order: j0000, j0001, ...

        Cli.Result some = cli.run("list", "orders", "--state", "scheduled", "--limit", "1500");
        assertThat(some.lines()).hasSize(1501);
        assertThat(some.lines().get(0)).matches("ID +STATE +ATTEMPT +DUE +ERROR");
        assertThat(some.lines().get(1)).startsWith("j0000 ").contains("scheduled");
        assertThat(some.lines().get(1500)).startsWith("j1499 ");

        assertThat(cli.run("list", "orders", "--state", "scheduled").lines()).hasSize(101); // default limit 100
    }

    @Test
    void userDataWithBlanksQuotesOrControlsIsQuotedInEveryTextTable() throws Exception {
        // An id that, printed bare, reads as another job's row: "x  dead  3" in the ID column.
        String spoof = "x  dead        3  2030-01-01T00:00:00Z";
        for (String id : List.of(spoof, "-", "say \"hi\"", "back\\slash", "plain")) {
            q.enqueue(Job.builder().id(id).delay(Duration.ofHours(1)).build());
        }
        Cli.Result list = cli.run("list", "orders", "--state", "scheduled");
        assertThat(list.exit()).isZero();
        assertThat(list.lines()).hasSize(6);
        assertThat(list.lines().subList(1, 6)).extracting(l -> l.substring(0, l.indexOf("  scheduled")).strip())
                .containsExactlyInAnyOrder("\"" + spoof + "\"", "\"-\"", "\"say \\\"hi\\\"\"", "\"back\\\\slash\"", "plain");

        killJobs("line one\n\u001b[2Kfake line", "dead one");
        Cli.Result dead = cli.run("list", "orders", "--state", "dead");
        assertThat(dead.lines().get(1)).startsWith("\"dead one\" ")
                .endsWith(" \"line one\\n\\u001b[2Kfake line\"");
        assertThat(cli.run("job", "orders", "dead one").lines()).contains("id            \"dead one\"",
                "error         \"line one\\n\\u001b[2Kfake line\"");

        assertThat(cli.run("events", "orders", "--enable").exit()).isZero();
        q.enqueue(Job.builder().id("a b completed c").build());
        Cli.Result events = cli.run("events", "orders");
        assertThat(events.lines()).hasSize(1);
        assertThat(events.lines().get(0)).matches("\\d+-\\d+ enqueued \"a b completed c\" at=\\S+");

        assertThat(cli.run("schedule", "add", "orders", "nightly report", "--cron", "30 2 * * *").exit()).isZero();
        assertThat(cli.run("schedule", "list", "orders").lines().get(1))
                .matches("\"nightly report\" +\"30 2 \\* \\* \\*\" +UTC .*");

        // JSON was safe already: the values as they are.
        assertThat(Json.MAPPER.readTree(cli.run("--json", "job", "orders", "dead one").out()).get("id").asText())
                .isEqualTo("dead one");
    }

    @Test
    void listShowsOneLineErrorsAndRejectsUnknownStates() {
        killJobs("boom\nat line 2", "d1", "d2");
        Cli.Result dead = cli.run("list", "orders", "--state", "DEAD");
        assertThat(dead.exit()).isZero();
        assertThat(dead.lines()).hasSize(3);
        assertThat(dead.lines().get(1)).startsWith("d1 ").contains(" dead ").endsWith("\"boom\\nat line 2\"");

        Cli.Result empty = cli.run("list", "orders", "--state", "done");
        assertThat(empty.exit()).isZero();
        assertThat(empty.lines()).hasSize(1);

        Cli.Result bad = cli.run("list", "orders", "--state", "finished");
        assertThat(bad.exit()).isEqualTo(Exit.USAGE);
        assertThat(bad.err()).isEqualTo("delayq: unknown state 'finished': use scheduled, processing, done, dead or waiting "
                + "(or of the scheduled jobs: ready, delayed or retrying)\n");

        Cli.Result limit = cli.run("list", "orders", "--state", "dead", "--limit", "0");
        assertThat(limit.exit()).isEqualTo(Exit.USAGE);
        assertThat(limit.err()).contains("--limit is 0");
    }

    /** --state ready, delayed and retrying list the scheduled jobs as 'stats' counts them, text and JSON. */
    @Test
    void listSplitsTheScheduledJobsIntoReadyDelayedAndRetrying() throws Exception {
        q.enqueue(Job.builder().id("flaky").build());
        List<ClaimedJob> got = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs();
        q.leases().fail(got.get(0).lease(), "timeout talking to bank", true, Duration.ofHours(2));
        q.enqueue(Job.builder().id("now1").build());
        q.enqueue(Job.builder().id("now2").build());
        q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build());

        Cli.Result ready = cli.run("list", "orders", "--state", "ready");
        assertThat(ready.exit()).isZero();
        assertThat(ready.lines()).hasSize(3);
        assertThat(ready.lines().get(0)).startsWith("ID").contains("DUE");
        assertThat(ready.lines().subList(1, 3)).extracting(l -> l.split(" ")[0]).containsExactly("now1", "now2");

        Cli.Result delayed = cli.run("list", "orders", "--state", "delayed", "--json");
        assertThat(delayed.exit()).isZero();
        assertThat(delayed.lines()).hasSize(1);
        com.fasterxml.jackson.databind.JsonNode later = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                delayed.lines().get(0));
        assertThat(later.get("id").asText()).isEqualTo("later");
        assertThat(later.get("state").asText()).isEqualTo("scheduled");

        Cli.Result retrying = cli.run("list", "orders", "--state", "Retrying");
        assertThat(retrying.exit()).isZero();
        assertThat(retrying.lines()).hasSize(2);
        assertThat(retrying.lines().get(1)).startsWith("flaky ").contains(" scheduled ").endsWith("\"timeout talking to bank\"");

        assertThat(cli.run("list", "orders", "--state", "ready", "--limit", "1").lines()).hasSize(2);
        Cli.Result stats = cli.run("stats", "orders", "--json");
        com.fasterxml.jackson.databind.JsonNode s = new com.fasterxml.jackson.databind.ObjectMapper().readTree(stats.out());
        assertThat(List.of(s.get("ready").asInt(), s.get("delayed").asInt(), s.get("retrying").asInt())).containsExactly(2, 1, 1);
    }

    @Test
    void cancelDeletesAScheduledJobAndRefusesOthers() {
        q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build());
        Cli.Result ok = cli.run("cancel", "orders", "later");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).isEqualTo("cancelled later\n");
        assertThat(q.get("later")).isEmpty();

        Cli.Result gone = cli.run("cancel", "orders", "later");
        assertThat(gone.exit()).isEqualTo(Exit.FAILED);
        assertThat(gone.err()).isEqualTo("delayq: no job 'later' in queue 'orders'\n");

        killJobs("x", "d1");
        Cli.Result dead = cli.run("cancel", "orders", "d1");
        assertThat(dead.exit()).isEqualTo(Exit.FAILED);
        assertThat(dead.err()).isEqualTo("delayq: job 'd1' is dead: only scheduled jobs can be cancelled\n");
        assertThat(q.get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    @Test
    void rescheduleMovesAScheduledJob() {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
        Cli.Result at = cli.run("reschedule", "orders", "a", "--at", "2031-05-06T07:08:09Z");
        assertThat(at.exit()).isZero();
        assertThat(at.out()).isEqualTo("rescheduled a 2031-05-06T07:08:09Z\n");
        assertThat(q.get("a").orElseThrow().dueAt()).isEqualTo(Instant.parse("2031-05-06T07:08:09Z"));

        Cli.Result delay = cli.run("reschedule", "orders", "a", "--delay", "2h");
        assertThat(delay.exit()).isZero();
        Instant due = Instant.parse(delay.out().strip().split(" ")[2]);
        assertThat(due).isEqualTo(q.get("a").orElseThrow().dueAt());
        assertThat(Duration.between(Instant.now(), due)).isBetween(Duration.ofMinutes(119), Duration.ofMinutes(121));

        Cli.Result neither = cli.run("reschedule", "orders", "a");
        assertThat(neither.exit()).isEqualTo(Exit.USAGE);
        Cli.Result both = cli.run("reschedule", "orders", "a", "--delay", "1s", "--at", "2031-01-01T00:00:00Z");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        Cli.Result badDuration = cli.run("reschedule", "orders", "a", "--delay", "2 hours");
        assertThat(badDuration.exit()).isEqualTo(Exit.USAGE);
        assertThat(badDuration.err()).contains("invalid duration '2 hours'");

        Cli.Result missing = cli.run("reschedule", "orders", "zz", "--delay", "1s");
        assertThat(missing.exit()).isEqualTo(Exit.FAILED);
        assertThat(missing.err()).isEqualTo("delayq: no job 'zz' in queue 'orders'\n");
        completeJobs("c1");
        Cli.Result done = cli.run("reschedule", "orders", "c1", "--delay", "1s");
        assertThat(done.exit()).isEqualTo(Exit.FAILED);
        assertThat(done.err()).isEqualTo("delayq: job 'c1' is done: only scheduled jobs can be rescheduled\n");
    }

    @Test
    void retryRetriesDeadJobsAndReportsTheOthersWithoutStopping() {
        killJobs("boom", "d1", "d2", "d3", "d4");
        q.enqueue(Job.builder().id("s1").delay(Duration.ofHours(1)).build());

        Cli.Result r = cli.run("retry", "orders", "d1", "nope", "s1", "d2");
        assertThat(r.exit()).isEqualTo(Exit.FAILED);
        assertThat(r.lines()).containsExactly("retried d1", "retried d2");
        assertThat(r.err()).isEqualTo("delayq: no job 'nope' in queue 'orders'\n"
                + "delayq: job 's1' is scheduled: only dead jobs can be retried\n");
        assertThat(q.get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

        Cli.Result all = cli.run("retry", "orders", "--all-dead");
        assertThat(all.exit()).isZero();
        assertThat(all.out()).isEqualTo("retried 2 dead jobs\n");
        assertThat(q.inspector().stats().dead()).isZero();
        assertThat(q.inspector().stats().scheduled()).isEqualTo(5);

        assertThat(cli.run("retry", "orders").exit()).isEqualTo(Exit.USAGE);
        assertThat(cli.run("retry", "orders", "d1", "--all-dead").exit()).isEqualTo(Exit.USAGE);
    }

    @Test
    void purgeDeletesFinishedJobsPastRetention() throws Exception {
        completeJobs("c1", "c2");
        killJobs("boom", "d1");
        Cli.Result kept = cli.run("purge", "orders"); // default retention: done 1 h, dead 7 d
        assertThat(kept.exit()).isZero();
        assertThat(kept.out()).isEqualTo("purged 0 done and 0 dead jobs\n");
        assertThat(q.inspector().stats().done()).isEqualTo(2);

        Cli.Result json = cli.run("purge", "orders", "--older-than", "0s", "--json");
        assertThat(json.exit()).isZero();
        JsonNode n = Json.MAPPER.readTree(json.out());
        assertThat(n.get("done").asLong()).isEqualTo(2);
        assertThat(n.get("dead").asLong()).isEqualTo(1);
        assertThat(q.inspector().stats().done() + q.inspector().stats().dead()).isZero();

        assertThat(cli.run("purge", "orders", "--older-than", "1x").exit()).isEqualTo(Exit.USAGE);
    }

    @Test
    void checkReportsConsistencyAndEachProblem() throws Exception {
        q.enqueue(Job.builder().id("a").delay(Duration.ofHours(1)).build());
        q.enqueue(Job.builder().id("b").delay(Duration.ofHours(1)).build());
        Cli.Result ok = cli.run("check", "orders");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).isEqualTo("ok: 2 records and 2 index entries are consistent\n");

        // Break it behind the library's back: the record of "a" disappears, its due entry stays.
        String jobsKey = new String(new Keys(REDIS.prefix(), "orders").jobs(), StandardCharsets.UTF_8);
        REDIS.server().call("HDEL", jobsKey, "a");
        Cli.Result broken = cli.run("check", "orders");
        assertThat(broken.exit()).isEqualTo(Exit.FAILED);
        assertThat(broken.lines()).hasSize(1);
        assertThat(broken.lines().get(0)).startsWith("a: ");
        assertThat(broken.err()).startsWith("delayq: 1 problem(s) in queue 'orders'");

        Cli.Result json = cli.run("check", "orders", "--json");
        assertThat(json.exit()).isEqualTo(Exit.FAILED);
        JsonNode n = Json.MAPPER.readTree(json.out());
        assertThat(n.get("clean").asBoolean()).isFalse();
        assertThat(n.get("records").asLong()).isEqualTo(1);
        assertThat(n.get("entries").asLong()).isEqualTo(2);
        assertThat(n.get("problems").get(0).asText()).startsWith("a: ");
    }

    @Test
    void jobShowsThePriorityAndWhatARunningHandlerLastReported() throws Exception {
        q.enqueue(Job.builder().id("urgent").priority(7).build());
        JsonNode before = Json.MAPPER.readTree(cli.run("job", "orders", "urgent", "--json").out());
        assertThat(before.get("priority").asInt()).isEqualTo(7);
        assertThat(before.get("progress").isNull()).isTrue();
        ClaimedJob running = q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0);
        assertThat(q.leases().progressAsync(running.lease(), "{\"step\":2,\"of\":5}").join()).isEqualTo(Ack.OK);
        JsonNode during = Json.MAPPER.readTree(cli.run("job", "orders", "urgent", "--json").out());
        assertThat(during.get("progress").asText()).isEqualTo("{\"step\":2,\"of\":5}");
        assertThat(cli.run("job", "orders", "urgent").lines()).contains("priority      7",
                "progress      \"{\\\"step\\\":2,\\\"of\\\":5}\"");
        q.leases().complete(running.lease());
        assertThat(Json.MAPPER.readTree(cli.run("job", "orders", "urgent", "--json").out()).get("progress").isNull())
                .as("progress is cleared when the run ends").isTrue();
    }

    @Test
    void jobShowsNameEnqueueTimeStallsAndTheDedupeKeyWithTheDashboardsKeys() throws Exception {
        q.enqueue(Job.builder().id("n1").name("email").payload("hi").dedupe("order-7", Duration.ofHours(2)).build());
        Instant enqueued = q.get("n1").orElseThrow().enqueuedAt();
        assertThat(enqueued).isNotNull();
        for (ClaimedJob j : q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs()) {
            q.leases().complete(j.lease()); // n1 is done: its dedupe key now holds until enqueue time + 2 h
        }
        JsonNode json = Json.MAPPER.readTree(cli.run("job", "orders", "n1", "--json").out());
        assertThat(json.get("name").asText()).isEqualTo("email");
        assertThat(Instant.parse(json.get("enqueuedAt").asText())).isEqualTo(enqueued);
        assertThat(json.get("stalls").asInt()).isZero();
        assertThat(json.get("dedupeKey").asText()).isEqualTo("order-7");
        Instant held = Instant.parse(json.get("dedupeHeldUntil").asText());
        assertThat(held).isEqualTo(Instant.ofEpochMilli(q.get("n1").orElseThrow().dedupeHeldUntilMillis()));
        // The enqueue time is kept in whole seconds; the hold counts from the exact millisecond.
        assertThat(Duration.between(enqueued, held)).isBetween(Duration.ofHours(2), Duration.ofHours(2).plusSeconds(1));
        assertThat(json.get("corrupt").asBoolean()).isFalse();
        // The dashboard's job JSON, key for key (one mapping, JobFields): the whole payload, so never truncated.
        List<String> keys = new ArrayList<>();
        json.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("id", "state", "attempt", "maxAttempts", "dueAt", "leaseUntil", "finishedAt", "token",
                "error", "payload", "payloadBase64", "payloadBytes", "payloadPreviewBytes", "payloadTruncated", "name",
                "enqueuedAt", "stalls", "dedupeKey", "dedupeHeldUntil", "corrupt", "priority", "progress", "allowed", "errors");
        assertThat(json.get("payloadTruncated").asBoolean()).isFalse();
        assertThat(json.get("payloadPreviewBytes").asInt()).isEqualTo(json.get("payloadBytes").asInt());

        Cli.Result text = cli.run("job", "orders", "n1");
        assertThat(text.exit()).isZero();
        assertThat(text.lines()).contains("name          email", "enqueuedAt    " + enqueued, "stalls        0",
                "dedupeKey     order-7", "dedupeHeldUntil " + held, "corrupt       false");

        q.enqueue(Job.builder().id("plain").build());
        JsonNode plain = Json.MAPPER.readTree(cli.run("job", "orders", "plain", "--json").out());
        assertThat(plain.get("name").isNull()).isTrue();
        assertThat(plain.get("dedupeKey").isNull()).isTrue();
        assertThat(plain.get("dedupeHeldUntil").isNull()).isTrue();
        assertThat(cli.run("job", "orders", "plain").lines()).contains("name          -", "dedupeKey     -");
    }

    @Test
    void listShowsTheColumnItSortsByAndFlagsCorruptRecords() throws Exception {
        killJobs("boom", "d1");
        Instant died = q.get("d1").orElseThrow().finishedAt();
        Cli.Result dead = cli.run("list", "orders", "--state", "dead");
        assertThat(dead.lines().get(0)).matches("ID +STATE +ATTEMPT +DUE +FINISHED +ERROR");
        assertThat(dead.lines().get(1)).startsWith("d1 ").contains(" dead ").contains(" " + died + " ").endsWith("boom");

        q.enqueue(Job.builder().id("p1").build());
        Instant leaseUntil = Instant.ofEpochMilli(q.leases().claim(ClaimOptions.of(1, Duration.ofMinutes(1))).jobs().get(0)
                .leaseUntilMillis());
        Cli.Result processing = cli.run("list", "orders", "--state", "processing");
        assertThat(processing.lines().get(0)).matches("ID +STATE +ATTEMPT +DUE +LEASE UNTIL +ERROR");
        assertThat(processing.lines().get(1)).startsWith("p1 ").contains(" " + leaseUntil + " ");

        // A record that cannot be decoded is listed, flagged, between the healthy ones.
        for (String id : List.of("s1", "s2", "s3")) {
            q.enqueue(Job.builder().id(id).delay(Duration.ofHours(1)).build());
        }
        String jobsKey = new String(new Keys(REDIS.prefix(), "orders").jobs(), StandardCharsets.UTF_8);
        REDIS.server().call("HSET", jobsKey, "s2", "\u0007garbage");
        Cli.Result scheduled = cli.run("list", "orders", "--state", "scheduled");
        assertThat(scheduled.exit()).isZero();
        assertThat(scheduled.lines()).hasSize(4);
        assertThat(scheduled.lines().get(0)).matches("ID +STATE +ATTEMPT +DUE +ERROR");
        assertThat(scheduled.lines().get(2)).startsWith("s2 ").contains("[corrupt record, 8 raw bytes]");
        assertThat(scheduled.lines().get(3)).startsWith("s3 ").doesNotContain("corrupt");
        assertThat(scheduled.err()).contains("1 of the jobs listed have a stored record that cannot be decoded");
        List<JsonNode> json = new ArrayList<>();
        for (String line : cli.run("list", "orders", "--state", "scheduled", "--json").lines()) {
            json.add(Json.MAPPER.readTree(line));
        }
        assertThat(json).extracting(n -> n.get("corrupt").asBoolean()).containsExactly(false, true, false);
        assertThat(json.get(1).get("state").asText()).isEqualTo("scheduled");

        Cli.Result job = cli.run("job", "orders", "s2");
        assertThat(job.exit()).isZero();
        assertThat(job.lines()).contains("corrupt       true", "payload       \"\\u0007garbage\"");
        assertThat(job.err()).startsWith("delayq: warning: the stored record of job 's2' cannot be decoded");
    }

    @Test
    void deleteRemovesAJobInAnyStateButRunning() {
        q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).dedupe("k", Duration.ofHours(1)).build());
        Cli.Result scheduled = cli.run("delete", "orders", "later");
        assertThat(scheduled.exit()).isZero();
        assertThat(scheduled.out()).isEqualTo("deleted later\n");
        assertThat(q.get("later")).isEmpty();
        // The dedupe key went with it: a new job may take it at once.
        assertThat(q.enqueue(Job.builder().id("again").dedupe("k", Duration.ofHours(1)).build()).created()).isTrue();

        killJobs("boom", "d1");
        completeJobs("c1");
        assertThat(cli.run("delete", "orders", "d1").out()).isEqualTo("deleted d1\n");
        assertThat(cli.run("--json", "delete", "orders", "c1").out()).isEqualTo("{\"result\":\"deleted\",\"id\":\"c1\"}\n");
        assertThat(q.get("d1")).isEmpty();
        assertThat(q.get("c1")).isEmpty();

        q.enqueue(Job.builder().id("busy").build());
        assertThat(q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1))).jobs()).extracting(ClaimedJob::id)
                .contains("busy");
        Cli.Result running = cli.run("delete", "orders", "busy");
        assertThat(running.exit()).isEqualTo(Exit.FAILED);
        assertThat(running.out()).isEmpty();
        assertThat(running.err()).isEqualTo("delayq: job 'busy' is processing: a worker is running it, and only "
                + "scheduled, done or dead jobs can be deleted\n");
        assertThat(q.get("busy").orElseThrow().state()).isEqualTo(JobState.PROCESSING);

        // A record that cannot be decoded can be deleted too.
        q.enqueue(Job.builder().id("junk").delay(Duration.ofHours(1)).build());
        REDIS.server().call("HSET", new String(new Keys(REDIS.prefix(), "orders").jobs(), StandardCharsets.UTF_8), "junk", "");
        assertThat(cli.run("delete", "orders", "junk").out()).isEqualTo("deleted junk\n");
        assertThat(q.get("junk")).isEmpty();

        Cli.Result missing = cli.run("delete", "orders", "nope");
        assertThat(missing.exit()).isEqualTo(Exit.FAILED);
        assertThat(missing.err()).isEqualTo("delayq: no job 'nope' in queue 'orders'\n");
        assertThat(cli.run("delete", "orders").exit()).isEqualTo(Exit.USAGE);
    }

    @Test
    void cancelByDedupeKeyCancelsTheJobHoldingIt() {
        q.enqueue(Job.builder().id("r1").delay(Duration.ofHours(1)).dedupe("reminder:42", Duration.ofDays(1)).build());
        Cli.Result ok = cli.run("cancel", "orders", "--dedupe-key", "reminder:42");
        assertThat(ok.exit()).isZero();
        assertThat(ok.out()).isEqualTo("cancelled r1\n");
        assertThat(q.get("r1")).isEmpty();

        Cli.Result none = cli.run("cancel", "orders", "--dedupe-key", "reminder:42");
        assertThat(none.exit()).isEqualTo(Exit.FAILED);
        assertThat(none.err()).isEqualTo("delayq: no job holds dedupe key 'reminder:42' in queue 'orders'\n");

        q.enqueue(Job.builder().id("r2").dedupe("reminder:43", Duration.ofDays(1)).build());
        q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1)));
        Cli.Result running = cli.run("cancel", "orders", "--dedupe-key", "reminder:43");
        assertThat(running.exit()).isEqualTo(Exit.FAILED);
        assertThat(running.err()).isEqualTo("delayq: the job holding dedupe key 'reminder:43' is processing: only "
                + "scheduled jobs can be cancelled\n");

        q.enqueue(Job.builder().id("r3").delay(Duration.ofHours(1)).dedupe("reminder:44", Duration.ofDays(1)).build());
        assertThat(cli.run("--json", "cancel", "orders", "--dedupe-key", "reminder:44").out())
                .isEqualTo("{\"result\":\"cancelled\",\"id\":\"r3\"}\n");

        Cli.Result neither = cli.run("cancel", "orders");
        assertThat(neither.exit()).isEqualTo(Exit.USAGE);
        assertThat(neither.err()).isEqualTo("delayq: give the id of the job to cancel, or --dedupe-key KEY\n");
        Cli.Result both = cli.run("cancel", "orders", "r1", "--dedupe-key", "k");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.err()).isEqualTo("delayq: give either a job id or --dedupe-key, not both\n");
    }

    @Test
    void rescheduleAndJobByDedupeKeyWorkAsTheirByIdForms() throws Exception {
        q.enqueue(Job.builder().id("k1").payload("hi").delay(Duration.ofHours(1)).dedupe("reminder:7", Duration.ofDays(1)).build());
        Cli.Result at = cli.run("reschedule", "orders", "--dedupe-key", "reminder:7", "--at", "2031-05-06T07:08:09Z");
        assertThat(at.exit()).isZero();
        assertThat(at.out()).isEqualTo("rescheduled k1 2031-05-06T07:08:09Z\n");
        assertThat(q.get("k1").orElseThrow().dueAt()).isEqualTo(Instant.parse("2031-05-06T07:08:09Z"));
        Cli.Result delay = cli.run("--json", "reschedule", "orders", "--dedupe-key", "reminder:7", "--delay", "2h");
        JsonNode moved = Json.MAPPER.readTree(delay.out());
        assertThat(moved.get("result").asText()).isEqualTo("rescheduled");
        assertThat(moved.get("id").asText()).isEqualTo("k1");
        assertThat(Instant.parse(moved.get("dueAt").asText())).isEqualTo(q.get("k1").orElseThrow().dueAt());

        Cli.Result shown = cli.run("job", "orders", "--dedupe-key", "reminder:7");
        assertThat(shown.exit()).isZero();
        assertThat(shown.lines()).contains("id            k1", "state         scheduled", "payload       hi",
                "dedupeKey     reminder:7");
        JsonNode json = Json.MAPPER.readTree(cli.run("job", "orders", "--dedupe-key", "reminder:7", "--json").out());
        assertThat(json.get("id").asText()).isEqualTo("k1");
        assertThat(json.get("dedupeKey").asText()).isEqualTo("reminder:7");

        Cli.Result none = cli.run("job", "orders", "--dedupe-key", "reminder:8");
        assertThat(none.exit()).isEqualTo(Exit.FAILED);
        assertThat(none.err()).isEqualTo("delayq: no job holds dedupe key 'reminder:8' in queue 'orders'\n");
        Cli.Result noneMoved = cli.run("reschedule", "orders", "--dedupe-key", "reminder:8", "--delay", "1s");
        assertThat(noneMoved.exit()).isEqualTo(Exit.FAILED);
        assertThat(noneMoved.err()).isEqualTo("delayq: no job holds dedupe key 'reminder:8' in queue 'orders'\n");

        q.enqueue(Job.builder().id("k2").dedupe("reminder:9", Duration.ofDays(1)).build());
        q.leases().claim(ClaimOptions.of(10, Duration.ofMinutes(1)));
        Cli.Result running = cli.run("reschedule", "orders", "--dedupe-key", "reminder:9", "--delay", "1s");
        assertThat(running.exit()).isEqualTo(Exit.FAILED);
        assertThat(running.err()).isEqualTo("delayq: the job holding dedupe key 'reminder:9' is processing: only "
                + "scheduled jobs can be rescheduled\n");

        Cli.Result neither = cli.run("job", "orders");
        assertThat(neither.exit()).isEqualTo(Exit.USAGE);
        assertThat(neither.err()).isEqualTo("delayq: give the id of the job to show, or --dedupe-key KEY\n");
        Cli.Result both = cli.run("reschedule", "orders", "k1", "--dedupe-key", "reminder:7", "--delay", "1s");
        assertThat(both.exit()).isEqualTo(Exit.USAGE);
        assertThat(both.err()).isEqualTo("delayq: give either a job id or --dedupe-key, not both\n");
        Cli.Result badKey = cli.run("job", "orders", "--dedupe-key", "");
        assertThat(badKey.exit()).isEqualTo(Exit.USAGE);
    }
}
