"""BRIDGECREW_MQTT_URL: a broker's address, or nothing; a wrong one stops the server at once."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.props.bridge import Broker
from app.settings import Settings


def test_without_a_broker_nothing_is_published(tmp_path: Path) -> None:
    assert Settings(data_dir=tmp_path).mqtt_url is None
    assert Settings(data_dir=tmp_path, mqtt_url="").mqtt_url is None


@pytest.mark.parametrize("url", ["http://props.local", "mqtt://", "props.local:1883", "mqtt://a:x"])
def test_a_broker_address_that_is_not_one_is_refused_with_the_shape_it_needs(
    tmp_path: Path, url: str
) -> None:
    with pytest.raises(ValidationError, match="mqtt://host"):
        Settings(data_dir=tmp_path, mqtt_url=url)


def test_the_broker_address_gives_host_port_login_and_tls(tmp_path: Path) -> None:
    url = "mqtts://lights:s%40cret@props.local"
    assert Broker.from_url(Settings(data_dir=tmp_path, mqtt_url=url).mqtt_url or "") == Broker(
        "props.local", 8883, True, "lights", "s@cret"
    )
    assert Broker.from_url("mqtt://10.0.0.5:1884") == Broker("10.0.0.5", 1884, False, None, None)
