"""Card recognition with OpenCV: find the card in a photo, rectify it, match it to enrolled images.

No Flask and no database here: the app (``companion.web``) and the CLI (``companion vision``)
both call ``recognize`` and ``enroll``.
"""
