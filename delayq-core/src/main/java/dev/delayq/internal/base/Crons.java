package dev.delayq.internal.base;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Cron expressions of 5 fields (minute first) or 6 (seconds first), parsed by cron-utils: the check a schedule's
 * expression passes when it is built, and the parsed form {@code ScheduleTimes} matches tick times with.
 */
public final class Crons {
    private static final CronParser FIVE = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser SIX = new CronParser(unixWithSeconds());

    private Crons() {
    }

    private static CronDefinition unixWithSeconds() {
        return CronDefinitionBuilder.defineCron()
                .withSeconds().withValidRange(0, 59).and()
                .withMinutes().withValidRange(0, 59).and()
                .withHours().withValidRange(0, 23).and()
                .withDayOfMonth().withValidRange(1, 31).supportsL().supportsW().supportsLW().supportsQuestionMark().and()
                .withMonth().withValidRange(1, 12).and()
                .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0).supportsL().supportsHash()
                .supportsQuestionMark().and()
                .matchDayOfWeekAndDayOfMonth()
                .instance();
    }

    /**
     * Parses a cron expression of 5 or 6 fields.
     *
     * @throws IllegalArgumentException saying what is wrong and what is allowed
     */
    public static Cron parse(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("cron expression must not be empty: use 5 fields (minute hour day-of-month "
                    + "month day-of-week, e.g. '30 2 * * *') or 6 with seconds first (e.g. '*/10 * * * * *')");
        }
        String e = expression.trim();
        int fields = e.split("\\s+").length;
        if (fields != 5 && fields != 6) {
            throw new IllegalArgumentException("cron expression '" + Validation.printable(e) + "' has " + fields
                    + " fields: use 5 (minute hour day-of-month month day-of-week) or 6 (seconds first)");
        }
        Cron cron;
        try {
            cron = (fields == 5 ? FIVE : SIX).parse(e).validate();
        } catch (RuntimeException ex) {
            throw new IllegalArgumentException("cron expression '" + Validation.printable(e) + "' is invalid: "
                    + ex.getMessage() + " (fields: " + (fields == 6 ? "second 0-59, " : "") + "minute 0-59, hour 0-23, "
                    + "day-of-month 1-31, month 1-12 or JAN-DEC, day-of-week 0-7 or SUN-SAT; * , - / allowed)");
        }
        if (ExecutionTime.forCron(cron).nextExecution(ZonedDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC))
                .filter(t -> t.getYear() < 2100).isEmpty()) {
            throw new IllegalArgumentException("cron expression '" + Validation.printable(e) + "' never matches a date");
        }
        return cron;
    }

}
