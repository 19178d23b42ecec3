package dev.delayq.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.delayq.PayloadCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON in and out through the application's mapper: records, generic types, and clear errors for bad bytes. */
class JacksonCodecTest {
    record Line(String sku, int quantity) {
    }

    record Order(long id, List<Line> lines, Map<String, String> tags) {
    }

    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void recordsRoundTripAsJson() {
        PayloadCodec<Order> codec = JacksonCodec.of(mapper, Order.class);
        Order order = new Order(731, List.of(new Line("a-1", 2), new Line("b-7", 1)), Map.of("channel", "web"));
        byte[] json = codec.encode(order);
        assertThat(new String(json, StandardCharsets.UTF_8))
                .isEqualTo("{\"id\":731,\"lines\":[{\"sku\":\"a-1\",\"quantity\":2},{\"sku\":\"b-7\",\"quantity\":1}],"
                        + "\"tags\":{\"channel\":\"web\"}}");
        assertThat(codec.decode(json)).isEqualTo(order);
    }

    @Test
    void genericTypesRoundTripThroughATypeReference() {
        PayloadCodec<Map<String, List<Line>>> codec = JacksonCodec.of(mapper, new TypeReference<Map<String, List<Line>>>() { });
        Map<String, List<Line>> value = Map.of("north", List.of(new Line("x", 3)), "south", List.of());
        Map<String, List<Line>> back = codec.decode(codec.encode(value));
        assertThat(back).isEqualTo(value);
        assertThat(back.get("north").get(0)).isInstanceOf(Line.class);
    }

    record Refund(long orderId, int amountCents) {
    }

    @Test
    void theMappersOwnSettingsApply() {
        ObjectMapper snake = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        PayloadCodec<Refund> codec = JacksonCodec.of(snake, Refund.class);
        byte[] json = codec.encode(new Refund(731, 1999));
        assertThat(new String(json, StandardCharsets.UTF_8)).isEqualTo("{\"order_id\":731,\"amount_cents\":1999}");
        assertThat(codec.decode(json)).isEqualTo(new Refund(731, 1999));
    }

    @Test
    void aValueJacksonCannotWriteFailsClearly() {
        PayloadCodec<Object> codec = JacksonCodec.of(mapper, Object.class);
        assertThatThrownBy(() -> codec.encode(new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("payload of type java.lang.Object cannot be written as JSON: ");
    }

    @Test
    void bytesThatAreNotJsonOfTheTypeFailWithJacksonsMessage() {
        PayloadCodec<Order> codec = JacksonCodec.of(mapper, Order.class);
        assertThatThrownBy(() -> codec.decode("{\"id\": 731,".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not JSON of type dev.delayq.jackson.JacksonCodecTest$Order: ");
        assertThatThrownBy(() -> codec.decode("{\"id\": \"seven\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seven");
        assertThatThrownBy(() -> codec.decode("{\"id\": 1} trailing".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMapperAndATypeAreRequired() {
        assertThatThrownBy(() -> JacksonCodec.of(null, Order.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("object mapper and type must not be null");
        assertThatThrownBy(() -> JacksonCodec.of(mapper, (Class<Order>) null)).isInstanceOf(IllegalArgumentException.class);
    }
}
