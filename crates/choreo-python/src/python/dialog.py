
# The stock Dialog box, written for choreo. A Dialog box keeps no code in the file, only its
# dialog (`<dialogFile>`, a .dlg naming one QiChat topic per language) and its inputs and
# outputs; Choregraphe generated its code when the behavior ran. What it does here follows
# the Dialog box's tooltips, the topics' own comments ("u:(e:onStart) $onStopped=1",
# "stimulated using $playAGame=1 in qiChat script") and docs/qichat.md:
#
# - loaded: its topic in the robot's dialog language is loaded (a missing language fails
#   the load, naming those the dialog has); in that topic, each input and output name is a
#   memory key of the box's own (ALDialog.setVariablePath), so `e:onStart` and
#   `$onStopped=1` never reach another Dialog box;
# - onStart: the topic is activated and the dialog subscribed (the robot listens), then the
#   event onStart is raised (its `e:onStart` rules answer); another input raises its event
#   with the value received;
# - `$output=value` in the topic stimulates that output (with the value, unless it is a
#   bang); a stopping output (`$onStopped=...`, or one the author added) stops the box;
# - onStop, a stopping output or unload: the dialog is unsubscribed and the topic
#   deactivated (unloaded too on unload); onStop fires onStopped when the box has it.


class MyClass(GeneratedClass):
    def __init__(self):
        GeneratedClass.__init__(self)
        self._topic = None
        self._running = False
        for name in _INPUTS:
            if name not in ("onStart", "onStop"):
                setattr(self, "onInput_" + name, self._input(name))

    def onLoad(self):
        self._dialog = ALProxy("ALDialog")
        self._memory = ALProxy("ALMemory")
        self._prefix = self._choreo_box.path + "/"
        path = self.behaviorAbsolutePath() + "/" + _DIALOG_FILE
        topics = dict(self._choreo_box.dialog_topics(path))
        language = self._dialog.getLanguage()
        code = _LANGUAGES.get(language)
        if code not in topics:
            raise RuntimeError(
                "%s has no topic in %s (%s), the robot's language; it has: %s "
                "(choreo run --lang sets the robot's language)"
                % (_DIALOG_FILE, language, code, ", ".join(sorted(topics)))
            )
        self._topic = self._dialog.loadTopic(topics[code])
        for name in _INPUTS + [output for output, _, _ in _OUTPUTS]:
            self._dialog.setVariablePath(self._topic, name, self._prefix + name)
        for output, bang, stops in _OUTPUTS:
            self._choreo_watch(
                self._memory, self._prefix + output, self._output(output, bang, stops)
            )

    def onUnload(self):
        self._stop()
        self._choreo_unwatch()
        if self._topic is not None:
            topic, self._topic = self._topic, None
            self._dialog.unloadTopic(topic)

    def onInput_onStart(self):
        if self._topic is None:
            # The load failed and said why; the box then does nothing, as a robot's would.
            return
        if not self._running:
            self._dialog.activateTopic(self._topic)
            self._dialog.subscribe(self.getName())
            self._running = True
        self._memory.raiseEvent(self._prefix + "onStart", 1)

    def onInput_onStop(self):
        self._stop()
        # onStopped, when the box has it: a box whose author replaced it by outputs of their
        # own (the corpus's rock-paper-scissors "wait" and "play") signals none of them, each
        # meaning what the topic says.
        if any(name == "onStopped" for name, _, _ in _OUTPUTS):
            self.onStopped()

    def _stop(self):
        if self._running:
            self._running = False
            self._dialog.unsubscribe(self.getName())
            self._dialog.deactivateTopic(self._topic)

    def _input(self, name):
        def stimulated(p=None):
            self._memory.raiseEvent(self._prefix + name, p)

        return stimulated

    def _output(self, name, bang, stops):
        def stimulate(value):
            if not self._running:
                return
            if stops:
                self._stop()
            output = getattr(self, name)
            if bang:
                output()
            else:
                output(value)

        return stimulate
