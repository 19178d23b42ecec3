package dev.delayq.spring.docs;

import dev.delayq.spring.DelayqListener;
import dev.delayq.spring.DelayqParentResults;
import dev.delayq.spring.DelayqTemplate;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/** The flow of docs/spring-boot.md ("Flows"): parts whose results a summary reads; run by {@link ReportFlowTest}. */
@Component
class ReportFlow {
    record Part(long id) {
    }

    record PartTotal(long id, long total) {
    }

    /** The parts' totals (a stand-in for the application's own computation). */
    static final class Totals {
        long sum(Part part) {
            return part.id() * 100;
        }
    }

    /** Where summaries go (here: kept for the test to read). */
    static final class Reports {
        final List<List<PartTotal>> published = new CopyOnWriteArrayList<>();

        void publish(Collection<PartTotal> totals) {
            published.add(List.copyOf(totals));
        }
    }

    private final DelayqTemplate template;
    private final Totals totals = new Totals();
    final Reports reports = new Reports();

    ReportFlow(DelayqTemplate template) {
        this.template = template;
    }

    // tag::flow[]
    @DelayqListener(queue = "reports", name = "part")
    PartTotal part(Part part) {
        return new PartTotal(part.id(), totals.sum(part));          // this job's result
    }

    @DelayqListener(queue = "reports", name = "summary")
    void summary(@DelayqParentResults Map<String, PartTotal> parts) {
        reports.publish(parts.values());                             // the parents' results, read as PartTotal
    }

    void start(long a, long b) {                                     // enqueue the parts, then the summary after them
        template.enqueue("reports", template.job(new Part(a)).id("part-" + a).name("part").build());
        template.enqueue("reports", template.job(new Part(b)).id("part-" + b).name("part").build());
        template.enqueue("reports", template.job("summary").name("summary").after("part-" + a, "part-" + b).build());
    }
    // end::flow[]
}
