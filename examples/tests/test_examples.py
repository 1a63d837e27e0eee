"""The examples, tested the way a project's CI tests its behaviors: with choreo's pytest
plugin (the `behavior` and `choreo_load` fixtures) and its assertions. Run with
`pytest examples/tests` once the choreo package is installed."""

import pytest

from choreo.testing import assert_joint, assert_led, assert_output_fired, assert_said


@pytest.mark.behavior("../hello")
def test_hello_wakes_up_says_hello_and_nods(behavior):
    behavior.start()
    assert behavior.wait_end() == "finished"
    assert_said(behavior, "Hello! I am running in choreo.")
    assert_output_fired(behavior, "Say Hello", "onStopped", times=1)
    assert behavior.state()["posture"] == "StandInit"
    assert_joint(behavior, "HeadPitch", 0.0, tolerance=0.05)  # the nod ended looking ahead


@pytest.mark.behavior("../interactive", scenario="../interactive/touch.yaml")
def test_interactive_answers_the_touch_its_scenario_makes(behavior):
    behavior.start()
    assert behavior.wait_end() == "finished"
    assert_said(behavior, "Touch my head", contains=True)
    assert_said(behavior, "Hello! You touched my head.")
    assert_output_fired(behavior, "Answer", "onStopped", value=None, times=1)


@pytest.mark.behavior("../interactive")
def test_interactive_waits_for_a_touch_nobody_gives(behavior):
    behavior.start()
    ending = behavior.wait_end()
    assert ending == "idle" and ending.awaiting == ["FrontTactilTouched"]
    assert_output_fired(behavior, "Answer", "onStopped", times=0)


def test_dance_lights_the_eyes_green_and_ends_in_its_pose(choreo_load):
    dance = choreo_load("../dance")
    dance.start()
    assert dance.wait_end() == "finished"
    assert_said(dance, "Thank you!")
    assert_led(dance, "LeftFaceLeds", "#00ff00")
    assert_led(dance, "RightFaceLeds", (0.0, 1.0, 0.0))
    assert_joint(dance, "LShoulderPitch", 1.4, tolerance=0.02)
    assert dance.errors() == []


def test_the_assertions_say_what_the_robot_did_instead(choreo_load):
    hello = choreo_load("../hello")
    hello.start()
    assert hello.wait_end() == "finished"
    with pytest.raises(AssertionError, match="it said: \\['Hello! I am running in choreo.'\\]"):
        assert_said(hello, "Goodbye")
    with pytest.raises(AssertionError, match="HeadPitch is at"):
        assert_joint(hello, "HeadPitch", 1.0)
    with pytest.raises(AssertionError, match="no LED group"):
        assert_led(hello, "TailLeds", "#ffffff")
    with pytest.raises(AssertionError, match="fired 1 time"):
        assert_output_fired(hello, "Nod", "onStopped", times=2)
