"""Every page of the registry (ui/navigation.py), opened before and after a training: a page that
needs a run shows the guard and nothing else until there is one; after the training every page
draws itself without an exception or an error."""

from __future__ import annotations

import pytest

from ui import navigation

from .conftest import goto, texts, train

GUARD = "No trained model"


@pytest.mark.parametrize("page", navigation.PAGES, ids=lambda p: p.name)
def test_every_page_opens_before_and_after_training(app, page):
    goto(app, page.name)
    assert not app.exception and not app.error, page.name
    guarded = any(GUARD in i for i in texts(app.info))
    assert guarded == page.needs_run, page.name
    if page.needs_run:
        assert not app.title and not app.header  # nothing else drawn
        assert [link.proto.label for link in app.get("page_link")] == ["Go to Train"]
    else:
        assert len(app.title) == 1
    train(app)
    goto(app, page.name)
    assert not app.exception and not app.error, page.name
    assert not any(GUARD in i for i in texts(app.info)) and len(app.title) == 1, page.name


def test_the_registry_names_each_page_file_once_and_the_files_exist():
    from .conftest import ROOT

    files = [p.file for p in navigation.PAGES]
    assert len(set(files)) == len(files) and len({p.url_path for p in navigation.PAGES}) == len(files)
    assert sorted(files) == sorted(f"app_pages/{f.name}" for f in (ROOT / "app_pages").glob("*.py"))
    with pytest.raises(KeyError, match="no page 'nope'"):
        navigation.page("nope")
