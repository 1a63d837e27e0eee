
# The stock Choice box, written for choreo. Choregraphe 2.x generated this code when the
# behavior ran; what it must do comes from the box's tooltips and parameters, and from an
# older generated version that one corpus behavior embeds ("NAO is Disappointed"), read
# for its facts: which output gets what value, and the frames of the timeline.
#
# Asks the question given on onStart (a bang listens at once), then listens for one of the
# choices of the robot's language. A confident answer fires output_<n> with the phrasing
# heard (when the choices came on choicesList: `other` with the choice's place in that
# list, from 0). An answer between the two thresholds is confirmed first ("Did you say
# ...?"; no reply means yes, "no" counts as not understood). Silence repeats the question;
# after the maximum number of repetitions `other` gets "timeout". Answers not understood
# make the robot say so (and list the choices when help is on); after the maximum `other`
# gets "notUnderstood". The words "help", "repeat" and "exit" work when their parameters
# allow them ("exit": `other` gets "wordRecognised"). Touching the head opens a menu:
# front for the next choice, rear for the previous one, middle to select it; an exit entry
# ends with "onTactileSensor". onStop ends with "onStop". Unlike the older version, the
# thresholds are the parameters' values (it nudged them after each answer), and the
# sentences are choreo's own (it read them from a choice_sentences.xml file that is not
# public), in English and French.

import threading

_SENTENCES = {
    "English": {
        "not_understood": "Sorry, I did not understand.",
        "you_can_say": "You can say: %s.",
        "or": "or",
        "did_you_say": "Did you say %s?",
        "yes": ["yes"],
        "no": ["no"],
        "help": "help",
        "repeat": "repeat",
        "exit": "exit",
        "commands": "You can also say help, repeat or exit.",
        "tactile": "You can also answer with my head: touch the front for the next "
        "answer, the back for the previous one, and the middle to choose it.",
        "exit_entry": "exit",
    },
    "French": {
        "not_understood": "Pardon, je n'ai pas compris.",
        "you_can_say": "Tu peux dire : %s.",
        "or": "ou",
        "did_you_say": "As-tu dit %s ?",
        "yes": ["oui"],
        "no": ["non"],
        "help": "aide",
        "repeat": "répète",
        "exit": "quitte",
        "commands": "Tu peux aussi dire aide, répète ou quitte.",
        "tactile": "Tu peux aussi répondre avec ma tête : touche l'avant pour la réponse "
        "suivante, l'arrière pour la précédente, et le milieu pour la choisir.",
        "exit_entry": "quitter",
    },
}

_HEAD_SENSORS = ("FrontTactilTouched", "MiddleTactilTouched", "RearTactilTouched")

# Frames of the stock box's timeline: each holds the animations of one moment, and the
# timeline pauses there by itself.
_FRAME_TALK = 20
_FRAME_LISTEN = 40
_FRAME_TACTILE_HELP = 50
_FRAMES_NOT_UNDERSTOOD = (70, 80, 90)


class _Cancelled(Exception):
    """The interaction was stopped (onStop, unload, a new start)."""


class _Interaction(object):
    """One question: what was heard arrives through `hear`, the box's thread waits on it."""

    def __init__(self, question, choices, numbers):
        self.question = question
        self.choices = choices
        # For choices given on choicesList: each one's place in that list, given on `other`.
        self.numbers = numbers
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.heard = []
        # The speech in progress (a task id), stopped when the interaction is.
        self.speech = None
        self.listening = False
        self.cancelled = False
        self.finished = False

    def hear(self, event):
        with self.lock:
            if not self.listening or self.cancelled:
                return
            self.heard.append(event)
        self.wake.set()

    def cancel(self):
        with self.lock:
            self.cancelled = True
        self.wake.set()

    def claim_finish(self):
        """True once: the caller fires the box's final output."""
        with self.lock:
            if self.finished or self.cancelled:
                return False
            self.finished = True
            return True

    def check(self):
        if self.cancelled:
            raise _Cancelled()

    def wait(self, timeout):
        """The next event heard, or ("timeout",)."""
        self.wake.wait(timeout)
        with self.lock:
            self.wake.clear()
            if self.cancelled:
                raise _Cancelled()
            if self.heard:
                return self.heard.pop(0)
        return ("timeout",)


class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self._run = None
        self._external = None

    def onLoad(self):
        self._memory = ALProxy("ALMemory")
        self._tts = ALProxy("ALTextToSpeech")
        try:
            self._asr = ALProxy("ALSpeechRecognition")
        except Exception:
            self._asr = None
            self.logger.warning("no speech recognition on this robot: answer with the head")
        try:
            self._leds = ALProxy("ALLeds")
        except Exception:
            self._leds = None
        self._asr_name = "Choice_" + str(self.getName())
        for key in ("WordRecognized",) + _HEAD_SENSORS:
            self._choreo_watch(self._memory, key, self._on_event(key))

    def onUnload(self):
        self._cancel()
        self._choreo_unwatch()

    def onInput_choicesList(self, p):
        if self._run is not None:
            self.logger.warning("choicesList ignored: a question is in progress")
            return
        self._external = []
        for number, row in enumerate(p or []):
            phrasings = row if isinstance(row, (list, tuple)) else [row]
            phrasings = [str(x).strip(" \t,;.\n") for x in phrasings]
            phrasings = [x for x in phrasings if x]
            if phrasings:
                self._external.append((number, phrasings))

    def onInput_onStart(self, p):
        self._cancel()
        language = self._language()
        if self._external is not None:
            numbers = [number for number, _ in self._external]
            choices = [phrasings for _, phrasings in self._external]
        else:
            numbers = None
            choices = _choices_for(language)
        self._external = None
        question = p if isinstance(p, str) and p.strip() else None
        run = _Interaction(question, choices, numbers)
        self._run = run
        # The whole interaction runs in the hook, as the stock box's timeline expects: the
        # frames it shows meanwhile are set with gotoAndPlay, and when the hook returns the
        # start wrapper plays the timeline from its start, whose frame 1 ends the animations.
        self._interact(run, language)

    def onInput_onStop(self):
        self._cancel()
        self.other("onStop")

    # --- the interaction ---

    def _on_event(self, key):
        def deliver(value):
            run = self._run
            if run is None:
                return
            if key == "WordRecognized":
                word = value[0] if isinstance(value, (list, tuple)) and value else ""
                confidence = value[1] if isinstance(value, (list, tuple)) and len(value) > 1 else 0.0
                run.hear(("word", str(word), float(confidence)))
            elif value:
                run.hear(("touch", key))

        return deliver

    def _cancel(self):
        run, self._run = self._run, None
        if run is not None:
            run.cancel()
            speech = run.speech
            if speech is not None:
                self._tts.stop(speech)
            # Here rather than in the interrupted hook, which may wake after the unload.
            self._stop_listening(run)

    def _interact(self, run, language):
        try:
            self._ask(run, _sentences(language))
        except _Cancelled:
            pass
        finally:
            self._stop_listening(run)

    def _ask(self, run, say):
        no_reply = 0
        failures = 0
        if not run.choices:
            self.logger.warning("no choice for this language: nothing to listen for")
        if run.question:
            self._say(run, run.question)
        while True:
            event = self._listen(run, self._vocabulary(run, say), self._param("Speech recognition timeout", 6))
            if event[0] == "timeout":
                no_reply += 1
                if no_reply >= self._param("Maximum number of repetition when no reply", 3):
                    return self._finish(run, "other", "timeout")
                if run.question:
                    self._say(run, run.question)
                continue
            if event[0] == "touch":
                if self._tactile_menu(run, say):
                    return
                continue
            word, confidence = event[1], event[2]
            index, phrasing = _find(run.choices, word)
            command = self._command(word, say)
            if confidence < self._param("Minimum threshold to understand", 0.2) or (
                index is None and command is None
            ):
                failures += 1
                if self._not_understood(run, say, failures):
                    return
                continue
            if command == "help":
                self._say(run, self._help(run, say))
                self._say(run, say["commands"])
                continue
            if command == "repeat":
                if run.question:
                    self._say(run, run.question)
                continue
            if command == "exit":
                return self._finish(run, "other", "wordRecognised")
            if confidence < self._param("Minimum threshold to be sure", 0.3):
                self._say(run, say["did_you_say"] % phrasing)
                answer = self._listen(
                    run,
                    say["yes"] + say["no"],
                    self._param("Speech recognition timeout when confirmation", 6),
                )
                if answer[0] == "word" and answer[1] in say["no"]:
                    failures += 1
                    if self._not_understood(run, say, failures):
                        return
                    continue
            return self._choose(run, index, phrasing)

    def _not_understood(self, run, say, failures):
        """Says so (with help); True when that was the last failure allowed."""
        if failures >= self._param("Maximum number of repetition when failure", 5):
            self._finish(run, "other", "notUnderstood")
            return True
        self._animate(_FRAMES_NOT_UNDERSTOOD[(failures - 1) % len(_FRAMES_NOT_UNDERSTOOD)])
        self._say(run, say["not_understood"])
        if self._param("Activate help when failure", 1):
            self._say(run, self._help(run, say))
        return False

    def _tactile_menu(self, run, say):
        """Browses the choices with the head; True when the interaction ended."""
        entries = [row[0] for row in run.choices]
        if self._param("Activate exit command", 1):
            entries.append(None)
        if not entries:
            return False
        self._animate(_FRAME_TACTILE_HELP)
        self._say(run, say["tactile"])
        current = 0
        silences = 0
        self._say(run, entries[current] or say["exit_entry"])
        while True:
            event = self._listen(run, [], self._param("Tactile sensor menu timeout", 10))
            if event[0] == "timeout":
                silences += 1
                if silences >= self._param("Maximum number of repetition when no reply", 3):
                    self._finish(run, "other", "timeout")
                    return True
                self._say(run, entries[current] or say["exit_entry"])
                continue
            if event[0] != "touch":
                continue
            silences = 0
            if event[1] == "MiddleTactilTouched":
                if entries[current] is None:
                    self._finish(run, "other", "onTactileSensor")
                else:
                    self._choose(run, current, entries[current])
                return True
            step = 1 if event[1] == "FrontTactilTouched" else -1
            current = (current + step) % len(entries)
            self._say(run, entries[current] or say["exit_entry"])

    def _choose(self, run, index, phrasing):
        if self._param("Repeat validated choice", 1):
            self._say(run, phrasing)
        if run.numbers is not None:
            return self._finish(run, "other", run.numbers[index])
        return self._finish(run, "output_%d" % (index + 1), phrasing)

    def _finish(self, run, output, value):
        self._stop_listening(run)
        if not run.claim_finish():
            return
        if self._run is run:
            self._run = None
        method = getattr(self, output, None)
        if method is None:
            self.logger.error("the box has no output %r for the answer %r" % (output, value))
            return
        method(value)

    # --- robot access ---

    def _say(self, run, text):
        run.check()
        self._animate(_FRAME_TALK)
        run.speech = self._tts.post.say(str(text))
        if run.cancelled:
            self._tts.stop(run.speech)
        self._tts.wait(run.speech, 0)
        run.speech = None
        run.check()

    def _listen(self, run, words, timeout):
        run.check()
        self._animate(_FRAME_LISTEN)
        with run.lock:
            run.heard = []
            run.listening = True
        if self._asr is not None and words:
            self._asr.setVocabulary(list(words), False)
            self._asr.subscribe(self._asr_name)
        self._lights(True)
        try:
            return run.wait(timeout)
        finally:
            self._stop_listening(run)

    def _stop_listening(self, run):
        with run.lock:
            was_listening = run.listening
            run.listening = False
        if not was_listening:
            return
        if self._asr is not None:
            try:
                self._asr.unsubscribe(self._asr_name)
            except Exception:
                pass
        self._lights(False)

    def _lights(self, on):
        if self._leds is None:
            return
        try:
            if self._param("Activate eyes light", 1):
                self._leds.post.fadeRGB("FaceLeds", 0x0000FF if on else 0xFFFFFF, 0.1)
            if self._param("Activate ears light", 1):
                self._leds.post.fade("EarLeds", 1.0 if on else 0.0, 0.1)
            if self._param("Activate brain light", 1):
                self._leds.post.fade("BrainLeds", 1.0 if on else 0.0, 0.1)
        except Exception as e:
            self.logger.warning("lights: %s" % e)

    def _animate(self, frame):
        if _ANIMATED:
            try:
                self.gotoAndPlay(frame)
            except Exception:
                pass

    # --- words ---

    def _language(self):
        try:
            return str(self._tts.getLanguage())
        except Exception:
            return _EDITOR_LANGUAGE or "English"

    def _vocabulary(self, run, say):
        words = [phrasing for row in run.choices for phrasing in row]
        for command in ("help", "repeat", "exit"):
            if self._command_enabled(command):
                words.append(say[command])
        return words

    def _command(self, word, say):
        for command in ("help", "repeat", "exit"):
            if self._command_enabled(command) and word.lower() == say[command].lower():
                return command
        return None

    def _command_enabled(self, command):
        return self._param("Activate %s command" % command, 1)

    def _help(self, run, say):
        names = [row[0] for row in run.choices]
        if len(names) > 1:
            listed = ", ".join(names[:-1]) + " " + say["or"] + " " + names[-1]
        else:
            listed = "".join(names)
        return say["you_can_say"] % listed

    def _param(self, name, default):
        try:
            value = self.getParameter(name)
        except Exception:
            return default
        return default if value is None else value


def _choices_for(language):
    for wanted in (language, _EDITOR_LANGUAGE):
        for name, rows in _CHOICES.items():
            if wanted and name.lower() == wanted.lower() and rows:
                return rows
    return []


def _sentences(language):
    return _SENTENCES.get(language, _SENTENCES["English"])


def _find(choices, word):
    """The choice `word` is a phrasing of, and that phrasing: (index, phrasing)."""
    word = word.strip().lower()
    for index, row in enumerate(choices):
        for phrasing in row:
            if word == phrasing.lower():
                return index, phrasing
    return None, None
