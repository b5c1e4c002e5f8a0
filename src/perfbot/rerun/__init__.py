"""The rerun's GitHub side (``perfbot report``, on a GitHub-hosted job): benchmark results from the
runner become refreshed README rows (:mod:`.refresh`, :mod:`.versions_table`, the data in
:mod:`.rows`) and one review posted through the PR review's publisher (:mod:`.report`). What runs
on the Ascend machine is :mod:`perfbot.runner`, which never imports this package."""
