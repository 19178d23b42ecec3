package dev.delayq.internal.queue;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/** A k-way merge of iterators that are each sorted by {@code order}: the partitions of one index, in index order. */
final class MergedIterator<T> implements Iterator<T> {
    private record Head<T>(T item, Iterator<T> source) {
    }

    private final PriorityQueue<Head<T>> heads;

    MergedIterator(List<Iterator<T>> sources, Comparator<T> order) {
        heads = new PriorityQueue<>(Math.max(1, sources.size()), (a, b) -> order.compare(a.item, b.item));
        for (Iterator<T> s : sources) {
            if (s.hasNext()) {
                heads.add(new Head<>(s.next(), s));
            }
        }
    }

    @Override
    public boolean hasNext() {
        return !heads.isEmpty();
    }

    @Override
    public T next() {
        Head<T> h = heads.poll();
        if (h == null) {
            throw new NoSuchElementException();
        }
        if (h.source.hasNext()) {
            heads.add(new Head<>(h.source.next(), h.source));
        }
        return h.item;
    }
}
