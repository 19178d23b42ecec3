package dev.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.delayq.testkit.RedisBinary;
import dev.delayq.testkit.RedisClusterExtension;
import dev.delayq.testkit.RedisServer;
import dev.delayq.testkit.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis user with exactly {@link LeastPrivilege#rules}: a producer and a worker do everything delayq does (every
 * script, the worker's wake-ups, events, limits, schedules, maintenance) without a single refusal in Redis's ACL log,
 * while another prefix's keys, FLUSHALL, CONFIG and KEYS get NOPERM. On one node and on a cluster.
 */
class LeastPrivilegeTest {
    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String PASSWORD = "least-privilege-pw";

    @Test
    void aRestrictedUserRunsEverythingOnOneNode() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            runsEverythingOn(server);
        }
    }

    @Test
    void aRestrictedUserRunsEverythingOnRedis62() throws IOException {
        try (RedisServer server = RedisServer.builder().binary(RedisBinary.bundled()).start()) {
            runsEverythingOn(server);
        }
    }

    private static void runsEverythingOn(RedisServer server) throws IOException {
        String version = server.info("server").get("redis_version");
        List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", "orders", "on", ">" + PASSWORD));
        cmd.addAll(LeastPrivilege.rules("lp", version));
        assertThat(server.call(cmd.toArray(String[]::new))).isEqualTo("OK");
        server.call("ACL", "LOG", "RESET");
        try (DelayQ dq = DelayQ.builder().redis("redis://orders:" + PASSWORD + "@127.0.0.1:" + server.port())
                .prefix("lp").timeout(Duration.ofSeconds(10)).build()) {
            exercise(dq, "single", 0);
            exercise(dq, "parted", 3);
            assertThat(dq.deleteAll()).isPositive();
        }
        assertThat(refusals(server)).as("ACL LOG after delayq's own work").isEmpty();
        assertEverythingElseRefused(server.port(), "lp");
    }

    @Test
    void aRestrictedUserRunsEverythingOnACluster() throws IOException {
        String prefix = CLUSTER.prefix();
        String user = "u" + prefix;
        for (RedisServer node : CLUSTER.cluster().running()) {
            String version = node.info("server").get("redis_version");
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", user, "on", ">" + PASSWORD));
            cmd.addAll(LeastPrivilege.rules(prefix, version));
            assertThat(node.call(cmd.toArray(String[]::new))).isEqualTo("OK");
            node.call("ACL", "LOG", "RESET");
        }
        String seed = CLUSTER.cluster().uri().replace("redis://", "redis://" + user + ":" + PASSWORD + "@");
        try (DelayQ dq = DelayQ.builder().redis(seed).cluster(true).prefix(prefix).timeout(Duration.ofSeconds(10)).build()) {
            exercise(dq, "single", 0);
            exercise(dq, "parted", 3);
            assertThat(dq.deleteAll()).isPositive();
        }
        for (RedisServer node : CLUSTER.cluster().running()) {
            assertThat(refusals(node)).as("ACL LOG of %s", node.uri())
                    .allSatisfy(entry -> assertThat(entry).doesNotContain(user));
        }
        RedisServer any = CLUSTER.cluster().masters().get(0);
        try (Resp r = login(any.port(), user)) {
            assertRefused(r, "FLUSHALL");
            assertRefused(r, "CONFIG", "GET", "maxmemory");
            assertRefused(r, "KEYS", "*");
        }
    }

    /**
     * A worker whose wake channel is refused fails to start, saying why; once the channel is granted, the next worker
     * subscribes for real (the refused subscriber was not left registered) and is woken by an enqueue at once, long
     * before its idle sleep would end.
     */
    @Test
    void aWorkerRefusedItsWakeChannelFailsToStartAndTheNextOneIsWokenOnceGranted() {
        try (RedisServer server = RedisServer.start()) {
            String version = server.info("server").get("redis_version");
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", "nochan", "on", ">" + PASSWORD));
            cmd.addAll(LeastPrivilege.rules("lp", version));
            cmd.add("resetchannels");
            assertThat(server.call(cmd.toArray(String[]::new))).isEqualTo("OK");
            try (DelayQ dq = DelayQ.builder().redis("redis://nochan:" + PASSWORD + "@127.0.0.1:" + server.port())
                    .prefix("lp").timeout(Duration.ofSeconds(10)).build()) {
                JobQueue q = dq.queue("wake");
                List<String> ran = new CopyOnWriteArrayList<>();
                Worker refused = Worker.builder(q, job -> ran.add(job.id())).maxIdleSleep(Duration.ofMinutes(2)).build();
                assertThatThrownBy(refused::start).isInstanceOf(DelayQException.class).hasMessageContaining("NOPERM");
                assertThat(server.call("ACL", "SETUSER", "nochan", "&lp:{*")).isEqualTo("OK");
                try (Worker w = Worker.builder(q, job -> ran.add(job.id())).maxIdleSleep(Duration.ofMinutes(2)).build()
                        .start()) {
                    q.enqueue(Job.builder().id("woken").delay(Duration.ofMillis(300)).build());
                    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ran.contains("woken"));
                }
            }
        }
    }

    /** Every command and script delayq has, through the public API, as the restricted user. */
    private static void exercise(DelayQ dq, String name, int partitions) {
        JobQueue q = dq.queue(name, partitions);
        assertThat(dq.serverVersion()).isNotBlank();
        assertThat(dq.serverInfo().version()).isNotBlank();
        assertThat(dq.serverTime()).isNotNull();
        q.inspector().events(true);
        q.inspector().limits(Limits.ofConcurrency(10));
        assertThat(q.inspector().limits()).isEqualTo(Limits.ofConcurrency(10));
        assertThat(q.enqueue(Job.builder().id("later").delay(Duration.ofHours(1)).build()).created()).isTrue();
        assertThat(q.enqueue(Job.builder().dedupe("order-1", Duration.ofMinutes(5)).delay(Duration.ofHours(1))
                .build()).created()).isTrue();
        q.enqueueAll(List.of(Job.builder().id("b1").delay(Duration.ofHours(1)).build(),
                Job.builder().id("b2").delay(Duration.ofHours(1)).priority(7).name("mail").build()));
        assertThat(dq.statsAsync(List.of(name)).get(name).join().scheduled()).isEqualTo(4); // stats_many.lua
        assertThat(q.get("later")).isPresent();
        assertThat(q.inspector().list(JobState.SCHEDULED, 0, 10)).hasSize(4);
        try (Stream<JobInfo> all = q.inspector().stream(JobState.SCHEDULED)) {
            assertThat(all.count()).isEqualTo(4);
        }
        assertThat(q.reschedule("later", Duration.ofHours(2)).changed()).isTrue();
        assertThat(q.cancel("later").changed()).isTrue();
        assertThat(q.cancelByDedupeKey("order-1").changed()).isTrue();
        assertThat(q.inspector().delete("b1").changed()).isTrue();
        assertThat(q.inspector().delete("b2").changed()).isTrue();

        // Claims by hand: claim, renew, progress, complete; recovery of an expired lease.
        q.enqueue(Job.builder().id("by-hand").build());
        ClaimBatch batch = awaitClaim(q);
        Lease lease = batch.jobs().get(0).lease();
        long beforeRenew = dq.serverTime().toEpochMilli();
        RenewResult renewed = q.leases().renew(List.of(lease), Duration.ofSeconds(30));
        assertThat(renewed.acks()).as("the holder's own live lease is renewed, not refused").containsExactly(Ack.OK);
        assertThat(renewed.leaseUntilMillis()).isBetween(beforeRenew + 30_000, dq.serverTime().toEpochMilli() + 30_000);
        assertThat(q.get("by-hand").orElseThrow().leaseUntilMillis()).isEqualTo(renewed.leaseUntilMillis());
        assertThat(q.leases().progressAsync(lease, "50").join()).isEqualTo(Ack.OK);
        assertThat(q.leases().complete(lease)).isEqualTo(Ack.OK);

        // A worker: wake-ups by pub/sub, success, failure to dead, maintenance.
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Worker w = Worker.builder(q, job -> {
            ran.add(job.id());
            if (job.id().startsWith("bad")) {
                throw new NonRetryableException("refused on purpose");
            }
        }).maxIdleSleep(Duration.ofSeconds(30)).build().start()) {
            q.inspector().pause();
            q.inspector().resume();
            q.enqueue(Job.builder().id("good").delay(Duration.ofMillis(200)).build());
            q.enqueue(Job.builder().id("bad").build());
            Awaitility.await().atMost(WAIT).until(() -> ran.containsAll(List.of("good", "bad"))
                    && q.inspector().stats().dead() == 1 && q.inspector().stats().processing() == 0);
            assertThat(q.inspector().retryDead("bad").changed()).isTrue();
            Awaitility.await().atMost(WAIT).until(() -> ran.stream().filter("bad"::equals).count() == 2
                    && q.inspector().stats().dead() == 1);
            // Schedules: upsert (the compare-and-set script), the worker's ticker (its notice channel, the advance with
            // the no-overlap check), list, tick by hand, remove.
            assertThat(q.schedules().upsert(Schedule.every("beat", Duration.ofSeconds(1)))).isTrue();
            assertThat(q.schedules().upsert(Schedule.every("beat", Duration.ofSeconds(1)).noOverlap(true))).isFalse();
            Awaitility.await().atMost(WAIT).until(() -> ran.stream().filter(id -> id.startsWith("beat@")).count() >= 2);
            assertThat(q.schedules().list()).hasSize(1);
            assertThat(q.schedules().tick()).isNotNegative();
            assertThat(q.schedules().remove("beat")).isTrue();
            Awaitility.await().atMost(WAIT).until(() -> q.inspector().stats().processing() == 0);
        }
        assertThat(q.inspector().retryAllDead()).isEqualTo(1);
        assertThat(q.inspector().check().clean()).isTrue();
        assertThat(q.inspector().history(5)).isNotEmpty();
        assertThat(q.inspector().events().read("0", 1000)).isNotEmpty();
        assertThat(q.inspector().purge().toString()).isNotEmpty();
        assertThat(dq.queues()).contains(name);
    }

    private static ClaimBatch awaitClaim(JobQueue q) {
        ClaimBatch[] got = new ClaimBatch[1];
        Awaitility.await().atMost(WAIT).until(() -> {
            got[0] = q.leases().claim(ClaimOptions.of(1, Duration.ofSeconds(30)));
            return !got[0].jobs().isEmpty();
        });
        return got[0];
    }

    private static void assertEverythingElseRefused(int port, String prefix) throws IOException {
        try (Resp r = login(port, "orders")) {
            assertThat(r.call("HGET", prefix + ":{single}:jobs", "x")).isNull(); // its own keys: allowed
            assertRefused(r, "SET", "other:key", "1");
            assertRefused(r, "HGET", prefix + ":staging:{single}:jobs", "x"); // a longer prefix is another's
            assertRefused(r, "HGET", "lpx:{single}:jobs", "x");
            assertRefused(r, "PUBLISH", "other-channel", "hello");
            assertRefused(r, "FLUSHALL");
            assertRefused(r, "FLUSHDB");
            assertRefused(r, "CONFIG", "GET", "maxmemory");
            assertRefused(r, "CONFIG", "SET", "maxmemory", "1");
            assertRefused(r, "KEYS", "*");
            assertRefused(r, "SHUTDOWN");
            assertRefused(r, "ACL", "LIST");
            assertRefused(r, "MONITOR");
            // A script runs with its caller's rights: EVAL is no way around them.
            assertThatThrownBy(() -> r.call("EVAL", "return redis.call('SET', 'outside', '1')", "0"))
                    .hasMessageContaining("can't access at least one of the keys");
            assertThatThrownBy(() -> r.call("EVAL", "return redis.call('FLUSHALL')", "0"))
                    .hasMessageContaining("can't run this command");
        }
    }

    private static Resp login(int port, String user) throws IOException {
        Resp r = new Resp("127.0.0.1", port, 10_000);
        assertThat(r.call("AUTH", user, PASSWORD)).isEqualTo("OK");
        return r;
    }

    private static void assertRefused(Resp r, String... command) {
        assertThatThrownBy(() -> r.call(command)).as(String.join(" ", command))
                .hasMessageContaining("NOPERM");
    }

    /**
     * The entries of {@code ACL LOG}, one string each, but for {@code CONFIG GET} (the optional maxmemory-policy check,
     * skipped when refused) and, before Redis 7.0, {@code CLIENT}: Lettuce's handshake sends {@code CLIENT SETINFO},
     * which Redis 6.2 logs as a refused "client" without its subcommand (7.0 rejects it as unknown before the ACL
     * check; 7.2 knows it and the rules allow it). {@code CLIENT SETNAME} is checked on the 7.x runs.
     */
    private static List<String> refusals(RedisServer server) {
        Object log = server.call("ACL", "LOG");
        List<String> out = new ArrayList<>();
        if (log instanceof List<?> entries) {
            for (Object e : entries) {
                String entry = String.valueOf(e);
                boolean before70 = entry.contains("object, client,") || entry.contains("object, config,");
                if (!entry.contains("config|get") && !before70) {
                    out.add(entry);
                }
            }
        }
        return out;
    }

    /** Every command a script calls is in the rules: a new script cannot fail only for restricted users. */
    @Test
    void everyCommandTheScriptsCallIsAllowed() throws IOException {
        Path lua = Path.of("src/main/resources/dev/delayq/lua");
        Pattern call = Pattern.compile("redis\\.p?call\\(\\s*['\"]([A-Za-z]+)['\"]");
        Set<String> used = new TreeSet<>();
        try (Stream<Path> files = Files.walk(lua)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".lua")).toList()) {
                Matcher m = call.matcher(Files.readString(f, StandardCharsets.UTF_8));
                while (m.find()) {
                    used.add(m.group(1).toLowerCase());
                }
            }
        }
        assertThat(used).isNotEmpty();
        assertThat(LeastPrivilege.rules("dq", "7.0.0")).containsAll(used.stream().map(c -> "+" + c).toList());
        // No command is called through a variable, which this check could not see.
        try (Stream<Path> files = Files.walk(lua)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".lua")).toList()) {
                assertThat(Files.readString(f)).as(f.toString()).doesNotContainPattern("redis\\.p?call\\(\\s*[^'\"\\s]");
            }
        }
    }

    @Test
    void rulesAreValidatedAndFollowTheServerVersion() {
        assertThat(LeastPrivilege.rules("dq", "6.2.6")).contains("~dq:{*", "~dq:queues", "&dq:{*", "-@all")
                .doesNotContain("+cluster|shards", "+waitaof");
        assertThat(LeastPrivilege.rules("dq", "7.2.4")).contains("+cluster|shards", "+waitaof", "+client|setinfo");
        assertThatThrownBy(() -> LeastPrivilege.rules("d q", "7.0.0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key prefix 'd q' is invalid");
        assertThatThrownBy(() -> LeastPrivilege.rules("dq", "seven")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Redis version 'seven' is invalid: use MAJOR.MINOR[.PATCH], e.g. 7.0.15");
        assertThat(LeastPrivilege.setUser("orders", "pw", "dq", "7.0.15"))
                .startsWith("ACL SETUSER orders on >pw resetkeys ~dq:{* ~dq:queues resetchannels &dq:{* -@all +hello");
    }
}
